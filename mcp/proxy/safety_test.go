package proxy_test

import (
	"bufio"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// frozenUpstream accepts connections and reads their requests, and never
// answers a request, or (stream) answers with the headers of an event
// stream and then nothing. It holds the connections until the test ends.
func frozenUpstream(t *testing.T, stream bool) *url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					if stream {
						io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
					}
					<-done
				}
			}()
		}
	}()
	return &url.URL{Scheme: "http", Host: ln.Addr().String(), Path: "/mcp"}
}

// TestFrozenUpstream: in front of an upstream that takes the request and
// never answers, HTTPHandler answers every request within its silence
// bound with a JSON-RPC error to the request's id: before the headers (502)
// and in the middle of a stream (its last event). The default bound is
// tested in TestHTTPDefaults; here a short one keeps the test short.
func TestFrozenUpstream(t *testing.T) {
	for _, tc := range []struct {
		name       string
		stream     bool
		body       string
		wantStatus int
		want       string
	}{
		{"no headers, initialize", false, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 502,
			`{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"selfheal proxy: the MCP server cannot be reached"}}`},
		{"no headers, tools/call", false, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"echo","arguments":{}}}`, 502,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32603,"message":"selfheal proxy: the MCP server cannot be reached"}}`},
		{"a silent stream", true, `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`, 200,
			`data: {"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"selfheal proxy: the MCP server ended its response before answering"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := proxy.New(proxy.WithUpstreamSilence(200*time.Millisecond), proxy.WithLogger(slog.New(slog.DiscardHandler)))
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(p.HTTPHandler(frozenUpstream(t, tc.stream)))
			defer srv.Close()
			req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			data, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.wantStatus || !strings.Contains(string(data), tc.want) {
				t.Errorf("HTTP %d\n%s\nwant %d with\n%s", resp.StatusCode, data, tc.wantStatus, tc.want)
			}
		})
	}
}

package proxy_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// cannedUpstream answers as go-sdk's Streamable HTTP server does, without a
// network: tools/list with write_file's schema, any other request with a
// stream of one event carrying a result, both under the request's id.
type cannedUpstream struct{}

const cannedTools = `{"tools":[{"name":"write_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"],"additionalProperties":false}}]}`

func (cannedUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	body, _ := io.ReadAll(r.Body)
	r.Body.Close()
	id := `1`
	if i := bytes.Index(body, []byte(`"id":`)); i >= 0 {
		rest := body[i+5:]
		id = string(rest[:bytes.IndexAny(rest, ",}")])
	}
	result := `{"content":[{"type":"text","text":"wrote 5 bytes"}]}`
	if bytes.Contains(body, []byte(`"tools/list"`)) {
		result = cannedTools
	}
	msg := `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
	sse := "event: message\ndata: " + msg + "\n\n"
	return &http.Response{
		StatusCode:    200,
		Status:        "200 OK",
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": {"text/event-stream"}, "Cache-Control": {"no-cache"}},
		Body:          io.NopCloser(strings.NewReader(sse)),
		ContentLength: -1,
		Request:       r,
	}, nil
}

// BenchmarkHTTPValidCall is a valid tools/call through the handler, in
// process, beside a plain httputil.ReverseProxy over the same upstream:
// the proxy's own cost per call, without the network and the scheduling
// that bench/relay's HTTP phase measures. (ReverseProxy allocates a 32 KiB
// copy buffer per response; the handler reuses its own.)
func BenchmarkHTTPValidCall(b *testing.B) {
	up, _ := url.Parse("http://127.0.0.1:9/mcp")
	p, err := proxy.New(proxy.WithTransport(cannedUpstream{}))
	if err != nil {
		b.Fatal(err)
	}
	rp := &httputil.ReverseProxy{Transport: cannedUpstream{}, Rewrite: func(pr *httputil.ProxyRequest) {
		pr.SetURL(up)
		pr.Out.Host = pr.In.Host
	}}
	for _, side := range []struct {
		name string
		h    http.Handler
	}{{"ReverseProxy", rp}, {"proxy", p.HTTPHandler(up)}} {
		b.Run(side.name, func(b *testing.B) {
			local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
			ctx := context.WithValue(context.Background(), http.LocalAddrContextKey, net.Addr(local))
			b.ReportAllocs()
			for i := range b.N {
				body := `{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/out.txt","content":"hello"}}}`
				r := httptest.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:8080/mcp", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				r.Header.Set("Accept", "application/json, text/event-stream")
				r.Header.Set("Mcp-Session-Id", "S1")
				w := httptest.NewRecorder()
				side.h.ServeHTTP(w, r)
				if !bytes.Contains(w.Body.Bytes(), []byte("wrote 5 bytes")) {
					b.Fatalf("%d %s", w.Code, w.Body)
				}
			}
		})
	}
}

package bench

import (
	"bytes"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// The HTTP proxy's cost beside a direct connection, side by side: a client
// POSTs a tools/call over loopback TCP (keep-alive) to a server that
// answers at once with a JSON body, directly or through
// proxy.HTTPHandler (the arguments checked against users.create's schema
// on the way). The difference per call is what the proxy adds: a second
// HTTP hop, the reading of the call, the validation. "bad" is a call the
// proxy answers itself, with the server never reached.

// httpBenchServer answers a tools/list with the tools and anything else
// with proxyBenchResult, as JSON.
func httpBenchServer() *httptest.Server {
	list := []byte(`{"jsonrpc":"2.0","id":0,"result":` + proxyBenchTools + "}")
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		if bytes.Contains(body, []byte(`"tools/list"`)) {
			w.Write(list)
			return
		}
		w.Write(proxyBenchResult)
	}))
}

func httpPost(b *testing.B, c *http.Client, endpoint string, body []byte) {
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := c.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		b.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b.Fatalf("HTTP %d", resp.StatusCode)
	}
}

func BenchmarkHTTPProxy(b *testing.B) {
	up := httpBenchServer()
	defer up.Close()
	u, _ := url.Parse(up.URL)
	p, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	front := httptest.NewServer(p.HTTPHandler(u))
	defer front.Close()
	// The same proxy without its HTTP bounds (read deadline, upstream
	// silence, body memory, requests at once): what the bounds cost.
	bare, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)), proxy.WithReadTimeout(-1),
		proxy.WithUpstreamSilence(-1), proxy.WithBodyMemory(-1), proxy.WithMaxRequests(-1))
	if err != nil {
		b.Fatal(err)
	}
	unbounded := httptest.NewServer(bare.HTTPHandler(u))
	defer unbounded.Close()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	// The proxies learn the tools from a listing they relay.
	for _, url := range []string{front.URL, unbounded.URL} {
		httpPost(b, client, url, []byte(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}`))
	}

	for _, tc := range []struct {
		name, endpoint string
		body           []byte
	}{
		{"direct", up.URL, proxyBenchCall},
		{"proxy", front.URL, proxyBenchCall},
		{"proxy-unbounded", unbounded.URL, proxyBenchCall},
		{"proxy-bad", front.URL, proxyBenchBadCall},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				httpPost(b, client, tc.endpoint, tc.body)
			}
		})
	}
}

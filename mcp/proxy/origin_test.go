package proxy_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// initializeBody is an initialize request, the first of a session.
const initializeBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// TestHostAndOrigin: on loopback, the proxy serves only loopback Host
// names and, from a browser, loopback origins or its own (the DNS-rebinding
// request of the conformance suite gets 403 and never reaches the
// server); it forwards the client's Host, so that a server that refuses
// foreign hosts still refuses one the proxy was told to allow.
func TestHostAndOrigin(t *testing.T) {
	var mu sync.Mutex
	var hosts []string // the Host of each request the upstream got
	server := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "v1"}, nil)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hosts = append(hosts, r.Host)
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(up.Close)
	upURL := mustURL(t, up.URL+"/mcp")

	for _, tc := range []struct {
		name         string
		opts         []proxy.Option
		host, origin string
		status       int
		reached      bool // the upstream got the request
	}{
		{"the proxy's address", nil, "", "", 200, true},
		{"localhost", nil, "localhost:8080", "", 200, true},
		{"a name under .localhost", nil, "mcp.localhost", "", 403, false},
		{"IPv6 loopback", nil, "[::1]:8080", "", 200, true},
		{"DNS rebinding", nil, "evil.example.com", "http://evil.example.com", 403, false},
		{"a foreign host alone", nil, "evil.example.com:8080", "", 403, false},
		{"a foreign origin", nil, "", "http://evil.example.com", 403, false},
		{"a loopback origin", nil, "", "http://localhost:6274", 200, true},
		{"the proxy's own origin", nil, "", "self", 200, true},
		{"an opaque origin", nil, "", "null", 403, false},
		{"an allowed origin", []proxy.Option{proxy.WithAllowedOrigins("https://app.example.com")}, "", "https://app.example.com", 200, true},
		{"an origin not allowed", []proxy.Option{proxy.WithAllowedOrigins("https://app.example.com")}, "", "https://other.example.com", 403, false},
		// Allowed by the proxy, refused by go-sdk's own protection, which
		// sees the client's Host: the server decides.
		{"an allowed host", []proxy.Option{proxy.WithAllowedHosts("MCP.example.com")}, "mcp.example.com:443", "", 403, true},
		{"a host not allowed", []proxy.Option{proxy.WithAllowedHosts("mcp.example.com")}, "localhost", "", 403, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := proxy.New(tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			front := httptest.NewServer(p.HTTPHandler(upURL))
			defer front.Close()
			mu.Lock()
			hosts = nil
			mu.Unlock()
			req, err := http.NewRequest(http.MethodPost, front.URL+"/mcp", strings.NewReader(initializeBody))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.host != "" {
				req.Host = tc.host
			}
			switch tc.origin {
			case "":
			case "self":
				req.Header.Set("Origin", front.URL)
			default:
				req.Header.Set("Origin", tc.origin)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Errorf("status %d, want %d", resp.StatusCode, tc.status)
			}
			mu.Lock()
			defer mu.Unlock()
			if reached := len(hosts) > 0; reached != tc.reached {
				t.Errorf("reached the server: %v, want %v", reached, tc.reached)
			} else if reached && hosts[0] != req.Host {
				t.Errorf("the server got Host %q, want the client's %q", hosts[0], req.Host)
			}
		})
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

package proxy

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// refusal, for a request that arrived on a loopback address or on another
// (a proxy bound to 0.0.0.0, reached over the network): "" when served.
func TestRefusal(t *testing.T) {
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	network := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 8080}
	for _, tc := range []struct {
		name         string
		local        net.Addr
		hosts        []string
		origins      []string
		host, origin string
		want         string
	}{
		{"loopback, loopback host", loopback, nil, nil, "127.0.0.1:8080", "", ""},
		{"loopback, foreign host", loopback, nil, nil, "evil.example.com", "", `Forbidden: the Host "evil.example.com" is not served here`},
		{"network, any host", network, nil, nil, "10.0.0.5:8080", "", ""},
		{"network, a name", network, nil, nil, "mcp.example.com", "", ""},
		{"network, own origin", network, nil, nil, "mcp.example.com", "https://mcp.example.com", ""},
		{"network, own origin, another port", network, nil, nil, "mcp.example.com:8080", "http://mcp.example.com:9090", `Forbidden: the Origin "http://mcp.example.com:9090" is not served here`},
		{"network, foreign origin", network, nil, nil, "10.0.0.5:8080", "http://evil.example.com", `Forbidden: the Origin "http://evil.example.com" is not served here`},
		{"network, loopback origin", network, nil, nil, "10.0.0.5:8080", "http://localhost:6274", `Forbidden: the Origin "http://localhost:6274" is not served here`},
		{"network, allowed hosts", network, []string{"mcp.example.com"}, nil, "10.0.0.5:8080", "", `Forbidden: the Host "10.0.0.5:8080" is not served here`},
		{"network, an allowed host", network, []string{"mcp.example.com"}, nil, "MCP.EXAMPLE.COM:8080", "", ""},
		{"any host", loopback, []string{"*"}, nil, "evil.example.com", "", ""},
		{"any origin", network, nil, []string{"*"}, "x", "http://evil.example.com", ""},
		{"allowed origin, trailing slash", network, nil, []string{"https://app.example.com/"}, "x", "https://app.example.com", ""},
		{"no local address", nil, nil, nil, "evil.example.com", "", ""},
		{"loopback ::1, foreign host", &net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, nil, nil, "evil.example.com", "", `Forbidden: the Host "evil.example.com" is not served here`},
		{"loopback 127.1.2.3, foreign host", &net.TCPAddr{IP: net.IPv4(127, 1, 2, 3), Port: 8080}, nil, nil, "evil.example.com", "", `Forbidden: the Host "evil.example.com" is not served here`},
		{"network ::, any host", &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}, nil, nil, "evil.example.com", "", ""},
		{"not TCP, loopback by its text", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, nil, nil, "evil.example.com", "", `Forbidden: the Host "evil.example.com" is not served here`},
		{"not TCP, network by its text", &net.UDPAddr{IP: net.IPv4(10, 0, 0, 5), Port: 8080}, nil, nil, "evil.example.com", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Proxy{cfg: config{allowedHosts: tc.hosts, allowedOrigins: tc.origins}}
			r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
			if tc.local != nil {
				r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, tc.local))
			}
			r.Host = tc.host
			if tc.origin != "" {
				r.Header.Set("Origin", tc.origin)
			}
			if got := p.refusal(r); got != tc.want {
				t.Errorf("refusal %q, want %q", got, tc.want)
			}
		})
	}
}

package sessions_test

import (
	"net/http"
	"net/http/httptest"
	"os/exec"
	"testing"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// TestCommandsHostAndOrigin: the Server refuses the DNS-rebinding request
// before it starts a process, and serves the proxy's own address.
func TestCommandsHostAndOrigin(t *testing.T) {
	p, err := proxy.New()
	if err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{}, 10)
	c, err := p.CommandHandler(func() *exec.Cmd {
		started <- struct{}{}
		return exec.Command("false")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	front := httptest.NewServer(c)
	defer front.Close()
	for _, tc := range []struct {
		host, origin string
		status       int
	}{
		{"evil.example.com", "http://evil.example.com", 403},
		{"", "http://evil.example.com", 403},
		{"", "", 404}, // served: a DELETE of a session that does not exist
	} {
		req, err := http.NewRequest(http.MethodDelete, front.URL+"/mcp", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Mcp-Session-Id", "nope")
		if tc.host != "" {
			req.Host = tc.host
		}
		if tc.origin != "" {
			req.Header.Set("Origin", tc.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.status {
			t.Errorf("Host %q Origin %q: status %d, want %d", tc.host, tc.origin, resp.StatusCode, tc.status)
		}
	}
	if len(started) != 0 {
		t.Errorf("%d processes started", len(started))
	}
}

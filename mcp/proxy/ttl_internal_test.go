package proxy

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// Over HTTP, a call of a tool in a listing old by its ttlMs is judged by
// that listing at once, and the tools are listed again behind it: a near
// miss is answered while the upstream holds the new listing back, and the
// upstream gets that listing.
func TestHTTPListedAgainBehind(t *testing.T) {
	var lists atomic.Int32
	second := make(chan struct{})  // the second listing reached the upstream
	release := make(chan struct{}) // lets the upstream answer it
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		body, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(body, &req)
		result := `{"content":[{"type":"text","text":"ran"}],"resultType":"complete"}`
		if req.Method == "tools/list" {
			if lists.Add(1) == 2 {
				close(second)
				<-release
			}
			result = `{"tools":[{"name":"deploy","inputSchema":{"type":"object","properties":{"env":{"type":"string"},"dryRun":{"type":"boolean"}}}}],"ttlMs":0,"cacheScope":"private","resultType":"complete"}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	}))
	defer up.Close()
	defer close(release)
	u, _ := url.Parse(up.URL + "/mcp")
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	h := p.HTTPHandler(u).(*httpGuard).h.(*httpProxy)
	post := func(args string) string {
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":` + args +
			`,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
		r := httptest.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		r.Header.Set("Authorization", "Bearer a")
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w.Body.String()
	}
	if got := post(`{"env":"dev"}`); !strings.Contains(got, `"text":"ran"`) {
		t.Fatalf("a valid call: %s", got)
	}
	r := httptest.NewRequest(http.MethodPost, "/", nil)
	r.Header.Set("Authorization", "Bearer a")
	sess := h.existing(scopeKey(r))
	if sess == nil {
		t.Fatal("nothing learned for the authorization")
	}
	sess.tools.mu.Lock()
	sess.tools.expires = time.Now().Add(-time.Millisecond) // the ttlMs has passed
	sess.tools.mu.Unlock()

	if got := post(`{"env":"dev","dryrun":true}`); !strings.Contains(got, `'dryrun'`) || !strings.Contains(got, `"resultType":"complete"`) {
		t.Fatalf("the near miss, judged by the old listing: %s", got)
	}
	// Answered while the listing is still under way (the upstream holds
	// it until the test ends): the call did not wait for it.
	sess.mu.Lock()
	under := sess.listing != nil
	sess.mu.Unlock()
	if !under {
		t.Fatal("the call waited for the new listing")
	}
	select {
	case <-second:
	case <-time.After(10 * time.Second):
		t.Fatal("the tools were not listed again behind the call")
	}
}

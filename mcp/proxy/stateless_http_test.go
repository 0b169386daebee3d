package proxy_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// seenRequest is what a test upstream noted of a request.
type seenRequest struct {
	method, name, version, auth string // the Mcp-Method, Mcp-Name, MCP-Protocol-Version and Authorization headers
	body                        string
}

// recorder wraps an upstream handler and notes every POST it gets.
type recorder struct {
	next http.Handler
	mu   sync.Mutex
	seen []seenRequest
}

func (rec *recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodPost {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		rec.mu.Lock()
		rec.seen = append(rec.seen, seenRequest{r.Header.Get("Mcp-Method"), r.Header.Get("Mcp-Name"), r.Header.Get("Mcp-Protocol-Version"), r.Header.Get("Authorization"), string(body)})
		rec.mu.Unlock()
	}
	rec.next.ServeHTTP(w, r)
}

// lists returns the tools/list requests the upstream got.
func (rec *recorder) lists() []seenRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []seenRequest
	for _, s := range rec.seen {
		if strings.Contains(s.body, `"method":"tools/list"`) {
			out = append(out, s)
		}
	}
	return out
}

// A go-sdk v1.8 client speaks 2026-07-28 by default: it never initializes
// and, here, never lists the tools before it calls. In front of a go-sdk
// server over Streamable HTTP, the proxy lists the tools itself in the
// call's revision (the _meta, the tools/list method headers, not the
// call's), so that a near miss of a declared key is stopped before the
// server, and the answer carries its resultType.
func TestHTTPStatelessCallsFirst(t *testing.T) {
	u := newUpstream(t, &mcp.StreamableHTTPOptions{Stateless: true}) // go-sdk serves 2026-07-28 only so
	rec := &recorder{next: u.srv.Config.Handler}
	up := httptest.NewServer(rec)
	t.Cleanup(up.Close)
	upURL, _ := url.Parse(up.URL + "/mcp")
	p, err := proxy.New()
	if err != nil {
		t.Fatal(err)
	}
	fr := httptest.NewServer(p.HTTPHandler(upURL))
	t.Cleanup(fr.Close)

	cs := connect(t, fr.URL+"/mcp", nil, nil)
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the client speaks %q, want 2026-07-28", v)
	}
	res := callTool(t, cs, "write_file", map[string]any{"path": "/a", "contents": "x"})
	if !res.IsError || !strings.Contains(text(res), "Missing. You sent: the unknown key 'contents'") {
		t.Fatalf("the near miss's answer: %s", mustMarshal(t, res))
	}
	if n := u.calls.Load(); n != 0 {
		t.Fatalf("the server ran the near miss (%d calls)", n)
	}
	lists := rec.lists()
	if len(lists) != 1 {
		t.Fatalf("the upstream got %d tools/list requests, want 1: %+v", len(lists), rec.seen)
	}
	l := lists[0]
	if l.method != "tools/list" || l.name != "" || l.version != "2026-07-28" {
		t.Errorf("the proxy's listing's headers: Mcp-Method %q, Mcp-Name %q, MCP-Protocol-Version %q", l.method, l.name, l.version)
	}
	var body struct {
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(l.body), &body); err != nil {
		t.Fatal(err)
	}
	if body.Params.Meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" ||
		body.Params.Meta["io.modelcontextprotocol/clientInfo"].(map[string]any)["name"] != "selfheal-proxy" {
		t.Errorf("the proxy's listing's _meta: %s", l.body)
	}
	if res := callTool(t, cs, "write_file", map[string]any{"path": "/a", "content": "x"}); res.IsError || text(res) != "wrote /a" {
		t.Errorf("a valid call: %s", mustMarshal(t, res))
	}
	if n := u.calls.Load(); n != 1 {
		t.Errorf("the server ran %d calls, want 1", n)
	}
}

// scopedUpstream is a stateless server (2026-07-28, JSON answers) whose
// tools depend on the Authorization header: "Bearer a" has deploy, any
// other has none; its tools/list results say scope.
func scopedUpstream(t *testing.T, scope string) (*httptest.Server, *recorder, *sync.Map) {
	ran := &sync.Map{} // tool name → true, for the calls it ran
	deploy := `{"name":"deploy","inputSchema":{"type":"object","properties":{"env":{"type":"string"},"dryRun":{"type":"boolean"}}}}`
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name string `json:"name"`
			} `json:"params"`
		}
		body, _ := io.ReadAll(r.Body)
		if json.Unmarshal(body, &req) != nil || r.Header.Get("Mcp-Method") != req.Method {
			http.Error(w, "Mcp-Method does not match the body", http.StatusBadRequest)
			return
		}
		var result string
		switch req.Method {
		case "tools/list":
			tools := ""
			if r.Header.Get("Authorization") == "Bearer a" {
				tools = deploy
			}
			result = `{"tools":[` + tools + `],"ttlMs":60000,"cacheScope":"` + scope + `","resultType":"complete"}`
		case "tools/call":
			ran.Store(req.Params.Name, true)
			result = `{"content":[{"type":"text","text":"ran"}],"resultType":"complete"}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(req.ID)+`,"result":`+result+`}`)
	})
	rec := &recorder{next: h}
	s := httptest.NewServer(rec)
	t.Cleanup(s.Close)
	return s, rec, ran
}

// post sends a tools/call of a stateless client to the proxy at u, with
// the Authorization auth ("" for none), and returns the response body.
func postStateless(t *testing.T, u, auth, args string) string {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"deploy","arguments":` + args + `,"_meta":` + meta2026 + `}}`
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, u, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "deploy")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("HTTP %d: %s", resp.StatusCode, data)
	}
	return string(data)
}

// What the proxy learns of a stateless server is kept by authorization:
// a "private" list is never used for another Authorization, and without
// one nothing is shared unless the server said "public".
func TestHTTPStatelessScope(t *testing.T) {
	const nearMiss = `{"env":"dev","dryrun":true}`
	for _, tc := range []struct {
		scope string
		// the listings the upstream gets for the calls below
		wantLists int
	}{
		// a: 2 calls, 1 listing; b: 1 call, 1 listing; none: 2 calls, 2
		// listings (private) or 1 (public, shared).
		{"private", 4},
		{"public", 3},
	} {
		t.Run(tc.scope, func(t *testing.T) {
			up, rec, ran := scopedUpstream(t, tc.scope)
			upURL, _ := url.Parse(up.URL + "/mcp")
			p, err := proxy.New()
			if err != nil {
				t.Fatal(err)
			}
			fr := httptest.NewServer(p.HTTPHandler(upURL))
			t.Cleanup(fr.Close)
			u := fr.URL + "/mcp"

			// a's list has deploy: the near miss is stopped, with resultType.
			for range 2 {
				got := postStateless(t, u, "Bearer a", nearMiss)
				if !strings.Contains(got, `'dryrun'`) || !strings.Contains(got, `"resultType":"complete"`) {
					t.Fatalf("a's near miss: %s", got)
				}
			}
			if _, ok := ran.Load("deploy"); ok {
				t.Fatal("the server ran a's near miss")
			}
			// b's list has no deploy: a's list must not judge b's call,
			// which the server decides.
			if got := postStateless(t, u, "Bearer b", nearMiss); !strings.Contains(got, `"text":"ran"`) {
				t.Fatalf("b's call: %s", got)
			}
			ran.Delete("deploy")
			for range 2 {
				if got := postStateless(t, u, "", nearMiss); !strings.Contains(got, `"text":"ran"`) {
					t.Fatalf("a call without authorization: %s", got)
				}
			}
			lists := rec.lists()
			if len(lists) != tc.wantLists {
				t.Errorf("the upstream got %d tools/list requests, want %d", len(lists), tc.wantLists)
			}
			for _, l := range lists {
				if l.method != "tools/list" || l.name != "" {
					t.Errorf("a listing's headers: Mcp-Method %q, Mcp-Name %q", l.method, l.name)
				}
			}
		})
	}
}

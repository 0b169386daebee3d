package proxy_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// callMeta is a tools/call request line whose params carry meta as _meta.
func callMeta(id, tool, args, meta string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `,"_meta":` + meta + `}}` + "\n"
}

// meta2026 is the _meta a client of revision 2026-07-28 sends with every
// request (the TypeScript SDK v2's envelope).
const meta2026 = `{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// Every answer the proxy writes is in the revision of the call: a call of
// a stateless revision (2026-07-28 or later, from its _meta) gets today's
// result with "resultType":"complete" as its last member, which a 2026
// client requires; any other call gets exactly today's bytes. That holds
// for an answer before forwarding (a near miss), one in place of the
// server's rejection, and a guard's refusal.
func TestAnswerInTheCallsRevision(t *testing.T) {
	const (
		nearMiss = `{"path":"/a","content":"x","dryrun":true}`
		bad      = `{"path":3,"content":"x"}`
		valid    = `{"path":"/a","content":"x"}`
	)
	// answer returns the proxy's answer to the call line, given as the
	// kind of answer says.
	answer := func(t *testing.T, kind, line string) string {
		switch kind {
		case "near miss":
			r := listed(t)
			r.fromClient(line)
			return r.atClient()
		case "explained":
			r := listed(t)
			r.fromClient(line)
			if got := r.atServer(); got != line {
				t.Fatalf("forwarded %q", got)
			}
			r.fromServer(rejectionOf(t, line))
			return r.atClient()
		case "busy":
			r := listed(t, proxy.WithGuard(guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue}))
			r.passes(call("1", "write_file", valid))
			r.fromClient(line)
			return r.atClient()
		}
		panic(kind)
	}
	args := map[string]string{"near miss": nearMiss, "explained": bad, "busy": valid}
	for _, kind := range []string{"near miss", "explained", "busy"} {
		today := answer(t, kind, call("7", "write_file", args[kind]))
		if strings.Contains(today, "resultType") || !strings.HasSuffix(today, "}}\n") {
			t.Fatalf("%s: today's answer %q", kind, today)
		}
		stateless := strings.TrimSuffix(today, "}}\n") + `,"resultType":"complete"}}` + "\n"
		for _, tc := range []struct {
			name, meta, want string
		}{
			{"no _meta", `{}`, today},
			{"2025-11-25", `{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}`, today},
			{"not a string", `{"io.modelcontextprotocol/protocolVersion":20260728}`, today},
			{"2026-07-28", meta2026, stateless},
			{"escaped", `{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28"}`, stateless},
			{"later", `{"io.modelcontextprotocol/protocolVersion":"2027-03-01"}`, stateless},
		} {
			t.Run(kind+"/"+tc.name, func(t *testing.T) {
				got := answer(t, kind, callMeta("7", "write_file", args[kind], tc.meta))
				if got != tc.want {
					t.Errorf("answer\n got %s\nwant %s", got, tc.want)
				}
			})
		}
	}
}

// ownListParams returns the params of the proxy's own tools/list request
// line, checking that it is one (see ownList), and its id.
func ownListParams(t *testing.T, line string) (id string, params map[string]any) {
	t.Helper()
	id = ownList(t, line, "")
	var req struct {
		Params map[string]any `json:"params"`
	}
	if err := json.Unmarshal([]byte(line), &req); err != nil {
		t.Fatal(err)
	}
	return id, req.Params
}

// A call that comes before any listing (the client serves the tools from
// its cache, or never lists them) waits while the proxy lists the tools
// itself, in the call's revision: with the 2026-07-28 _meta, naming the
// proxy as the client, for a stateless call; without params for a 2025
// one. The call is then judged: a near miss never reaches the server, a
// valid call passes as it was sent, and a call of a tool the server does
// not list passes without another listing.
func TestCallsFirst(t *testing.T) {
	for _, tc := range []struct {
		name, meta string
		wantParams string // the params of the proxy's listing, as JSON
	}{
		{"2025", `{}`, `null`},
		{"2026-07-28", meta2026, `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"selfheal-proxy","version":"(devel)"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			noLeak(t, func(t *testing.T) {
				r := newRig(t)
				r.passes(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")
				r.fromClient(callMeta("2", "write_file", `{"path":"/a","content":"x","dryrun":true}`, tc.meta))
				id, params := ownListParams(t, r.atServer())
				if got := mustMarshal(t, params); string(got) != tc.wantParams {
					t.Errorf("the proxy's listing's params\n got %s\nwant %s", got, tc.wantParams)
				}
				r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[` + toolJSON("write_file", writeSchema) + `],"ttlMs":60000,"cacheScope":"private"}}` + "\n")
				resp := r.decodeAnswer(r.atClient())
				if string(resp.ID) != "2" || !strings.Contains(string(resp.Result), `'dryrun'`) {
					t.Errorf("the near miss's answer: %s %s", resp.ID, resp.Result)
				}
				r.passes(callMeta("3", "write_file", `{"path":"/a","content":"x"}`, tc.meta))
				r.passes(callMeta("4", "not_listed", `{}`, tc.meta))
				r.finish()
			})
		})
	}
}

// After notifications/tools/list_changed in a session of a stateless
// revision, the proxy's own listing carries the 2026-07-28 _meta too, and
// the call that waits for it is judged by the new tools.
func TestListChangedStateless(t *testing.T) {
	r := newRig(t)
	r.passes(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":` + meta2026 + `}}` + "\n")
	r.returns(`{"jsonrpc":"2.0","id":1,"result":{"tools":[` + toolJSON("write_file", writeSchema) + `],"ttlMs":0,"cacheScope":"public"}}` + "\n")
	r.returns(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n")
	id, params := ownListParams(t, r.atServer())
	meta, _ := params["_meta"].(map[string]any)
	if meta["io.modelcontextprotocol/protocolVersion"] != "2026-07-28" {
		t.Fatalf("the proxy's relist after list_changed: params %v", params)
	}
	r.fromClient(callMeta("2", "edit_file", `{"path":"/a","edit":[]}`, meta2026))
	r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[` + toolJSON("edit_file", editSchema) + `],"ttlMs":0,"cacheScope":"public"}}` + "\n")
	resp := r.decodeAnswer(r.atClient())
	if string(resp.ID) != "2" || !strings.Contains(string(resp.Result), `the unknown key 'edit'`) || !strings.Contains(string(resp.Result), `"resultType":"complete"`) {
		t.Errorf("the held call's answer: %s %s", resp.ID, resp.Result)
	}
	r.finish()
}

// A server whose initialize result declares no tools capability is never
// sent a tools/list of the proxy's: its calls pass at once.
func TestCallsFirstNoToolsCapability(t *testing.T) {
	r := newRig(t)
	r.passes(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}` + "\n")
	r.returns(`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"prompts":{}},"serverInfo":{"name":"s","version":"1"}}}` + "\n")
	r.passes(call("2", "write_file", `{"path":"/a","content":"x","dryrun":true}`))
	r.finish()
}

// With WithListWait(0) no call waits for a listing: the proxy lists the
// tools, and a call sent before the listing ends passes unchecked, as
// directly; the calls after it are checked.
func TestListWaitZero(t *testing.T) {
	r := newRig(t, proxy.WithListWait(0))
	nearMiss := call("2", "write_file", `{"path":"/a","content":"x","dryrun":true}`)
	r.fromClient(nearMiss)
	// The listing and the call, in either order (the listing is written
	// from a goroutine of its own).
	first, second := r.atServer(), r.atServer()
	if first == nearMiss {
		first, second = second, first
	}
	id := ownList(t, first, "")
	if second != nearMiss {
		t.Fatalf("forwarded %q, want the call at once", second)
	}
	r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"result":` + toolsResult(toolJSON("write_file", writeSchema)) + "}\n")
	r.returns(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n") // the listing was read
	r.answeredNow(call("3", "write_file", `{"path":"/a","content":"x","dryrun":true}`))
	r.finish()
}

// A server that does not answer the listing in time costs one call the
// wait, not every call: the calls after it pass at once until a listing
// comes back, and are checked again from then on.
func TestListWaitGivenUp(t *testing.T) {
	r := newRig(t, proxy.WithListWait(20*time.Millisecond))
	first := call("2", "write_file", `{"path":"/a","content":"x","dryrun":true}`)
	r.fromClient(first)
	// The listing, then the call once its wait ended; in either order on a
	// loaded machine (the listing is written from a goroutine of its own).
	a, b := r.atServer(), r.atServer()
	if a == first {
		a, b = b, a
	}
	id := ownList(t, a, "")
	if b != first {
		t.Fatalf("forwarded %q, want the call once its wait ended", b)
	}
	r.passes(call("3", "write_file", `{"path":"/a","content":"x","dryrun":true}`)) // no wait now
	r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"result":` + toolsResult(toolJSON("write_file", writeSchema)) + "}\n")
	r.returns(`{"jsonrpc":"2.0","method":"notifications/message","params":{}}` + "\n") // the listing was read
	r.answeredNow(call("4", "write_file", `{"path":"/a","content":"x","dryrun":true}`))
	r.finish()
}

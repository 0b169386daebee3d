package proxy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// The server decides: a call with issues is forwarded; the answer replaces
// the server's response only when the server rejects the call (a JSON-RPC
// error, or a result with isError), and keeps what the server said.
func TestServerDecides(t *testing.T) {
	bad := `{"path":"/a"}` // content is missing
	for _, tc := range []struct {
		name, reply, said string // reply: the server's response, after "id":N,
	}{
		{"JSON-RPC error", `"error":{"code":-32602,"message":"Invalid arguments for tool write_file: expected string, received undefined at content"}`,
			"MCP error -32602: Invalid arguments for tool write_file: expected string, received undefined at content"},
		{"error with data", `"error":{"code":-32603,"message":"Internal error","data":{"path":"/a","why":"ENOENT"}}`,
			`MCP error -32603: Internal error {"path":"/a","why":"ENOENT"}`},
		{"error with string data", `"error":{"code":-32000,"message":"failed","data":"no such file"}`,
			"MCP error -32000: failed no such file"},
		{"isError result", `"result":{"content":[{"type":"text","text":"Error: ENOENT: no such file or directory, open '/a'"},{"type":"image","data":"AA==","mimeType":"image/png"}],"isError":true}`,
			`Error: ENOENT: no such file or directory, open '/a'\n[image content]`},
		{"prefix already in the message", `"error":{"code":-32602,"message":"MCP error -32602: Invalid arguments for tool write_file"}`,
			"MCP error -32602: Invalid arguments for tool write_file"},
		{"long message, cut", `"error":{"code":-32602,"message":"` + strings.Repeat("é", 3000) + `"}`,
			"MCP error -32602: " + strings.Repeat("é", 2036) + "… (964 characters cut)"}, // within the 4 KiB byte budget
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := listed(t)
			line := call("7", "write_file", bad)
			r.passes(line)
			r.fromServer(`{"jsonrpc":"2.0","id":7,` + tc.reply + "}\n")
			resp := r.decodeAnswer(r.atClient())
			if string(resp.ID) != "7" {
				t.Errorf("id %s", resp.ID)
			}
			got := decodeAny(t, withoutServerMessage(t, resp.Result, tc.said))
			want := viaGosdk(t, "write_file", writeSchema, "", bad, nil)
			if mustMarshalString(t, got) != mustMarshalString(t, want) {
				t.Errorf("result\n got %s\nwant %s", mustMarshal(t, got), mustMarshal(t, want))
			}
			r.finish()
		})
	}
}

func mustMarshalString(t *testing.T, v any) string { return string(mustMarshal(t, v)) }

// What the server says that the schema cannot explain passes untouched:
// any response to a call without issues, a success for a call with
// issues (logged once per tool: the schema and the server disagree), a
// response to a cancelled call.
func TestServerAnswerPasses(t *testing.T) {
	var logs bytes.Buffer
	var mu sync.Mutex
	var events []proxy.Event
	r := listed(t, proxy.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))), proxy.WithObserver(func(ev proxy.Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}))
	r.passes(call("1", "write_file", `{"path":"/a","content":"x"}`))
	r.returns(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}` + "\n")
	r.passes(call("2", "write_file", `{"path":"/a","content":"x"}`))
	r.returns(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"no"}],"isError":true}}` + "\n")
	for _, id := range []string{"3", "4"} { // coerced by the server: accepted
		r.passes(call(id, "write_file", `{"path":"/a","content":3}`))
		r.returns(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[{"type":"text","text":"wrote"}]}}` + "\n")
	}
	// A server's own validation_error explains the call already.
	r.passes(call("6", "write_file", `{"path":"/a"}`))
	r.returns(`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"<validation_error action=\"write_file\">\n</validation_error>"}],"isError":true}}` + "\n")
	r.passes(call("5", "write_file", `{"path":"/a"}`))
	r.passes(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5}}` + "\n")
	r.returns(`{"jsonrpc":"2.0","id":5,"error":{"code":-32800,"message":"cancelled"}}` + "\n")
	r.finish()
	if n := strings.Count(logs.String(), "the server accepted a call its schema calls bad"); n != 1 {
		t.Errorf("logged %d times:\n%s", n, logs.String())
	}
	var got []string
	for _, ev := range events {
		got = append(got, fmt.Sprintf("%s answered=%v explained=%v disagreed=%v %s", ev.Tool, ev.Answered, ev.Explained, ev.Disagreed, ev.Code))
	}
	want := []string{
		"write_file answered=false explained=false disagreed=false ",
		"write_file answered=false explained=false disagreed=false ",
		"write_file answered=false explained=false disagreed=true ",
		"write_file answered=false explained=false disagreed=true ",
		"write_file answered=false explained=false disagreed=false ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("events\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// An explained call is reported once, when its answer is sent.
func TestExplainedEvent(t *testing.T) {
	var log bytes.Buffer
	var events []proxy.Event
	r := listed(t, proxy.WithCallLog(&log), proxy.WithObserver(func(ev proxy.Event) { events = append(events, ev) }))
	r.explained(call("2", "write_file", `{"path":1,"content":"x"}`))
	r.finish()
	if len(events) != 1 || !events[0].Answered || !events[0].Explained || events[0].Code != "VALIDATION_ERROR" || fmt.Sprint(events[0].Issues) != "[invalid_type]" {
		t.Errorf("events %+v", events)
	}
	// The answer, then at the session's end its settlement (abandoned) and
	// the tally of the calls.
	if !strings.Contains(log.String(), `"answer":"validation_error"`) || strings.Count(log.String(), "\n") != 3 {
		t.Errorf("call log %s", log.String())
	}
}

// Requests are read as any JSON parser reads them: escaped member names
// anywhere, params null on tools/list. Ids other than strings and
// integers are the server's to judge: such a call is never answered by the
// proxy, whatever its arguments.
func TestDecodeAsJSON(t *testing.T) {
	r := newRig(t)
	r.passes(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":null}` + "\n")
	r.returns(`{"jsonrpc":"2.0","id":1,"result":` + toolsResult(toolJSON("write_file", writeSchema)) + "}\n")
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","\u0061rguments":{"path":"/a","dryrun":true,"content":"x"}}}` + "\n",
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"n\u0061me":"write_file","arguments":{"path":"/a","dryrun":true,"content":"x"}}}` + "\n",
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","content":"x","dry\u0072un":true}}}` + "\n",
		`{"jsonr\u0070c":"2.0","\u0069d":5,"method":"tools\/call","par\u0061ms":{"name":"write_file","arguments":{"path":"/a","content":"x","dryrun":true}}}` + "\n",
		// The last of a name given twice is the one a parser keeps.
		`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"nothing","name":"write_file","arguments":{},"arguments":{"path":"/a","content":"x","dryrun":true}}}` + "\n",
	} {
		resp := r.answeredNow(line)
		if !strings.Contains(string(resp.Result), "did you mean 'dryRun'?") {
			t.Errorf("%s: %s", line, resp.Result)
		}
	}
	for _, id := range []string{`1.5`, `true`, `null`, `[1]`, `{"a":1}`, `1e400`, `-0.5`} {
		line := call(id, "write_file", `{"path":"/a","content":"x","dryrun":true}`)
		r.passes(line)
		r.returns(`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request"}}` + "\n")
	}
	r.finish()
}

// Arguments deeper than the limit are forwarded unchecked by default (the
// server decides), and refused with WithStrict.
func TestDepthPolicy(t *testing.T) {
	deep := `{"path":"/a","content":"x","extra":` + strings.Repeat(`{"a":`, 70) + `1` + strings.Repeat(`}`, 70) + `}`
	r := listed(t)
	r.passes(call("2", "write_file", deep))
	r.returns(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}` + "\n")
	r.finish()
	r = listed(t, proxy.WithStrict(true))
	resp := r.answeredNow(call("2", "write_file", deep))
	if !strings.Contains(string(resp.Result), `"origin":"depth"`) {
		t.Errorf("%s", resp.Result)
	}
	r.finish()
}

// A rejection of a call forwarded with issues arrives through the guard's
// slot as any response: the slot is freed, and the answer replaces it.
func TestExplainedThroughLimiter(t *testing.T) {
	lim := &recordingLimiter{max: 1, active: map[string]int{}}
	r := listed(t, proxy.WithLimiter(lim))
	r.explained(call("2", "write_file", `{"path":"/a"}`))
	r.explained(call("3", "write_file", `{"path":"/a"}`)) // the slot was freed
	r.finish()
	if got := strings.Join(lim.keys, ","); got != "write_file,write_file" {
		t.Errorf("keys %s", got)
	}
}

// A required field with a default (zod's output mode lists them so, as
// @playwright/mcp does) is never reported missing, at the root, nested or
// in array items, even in the strict mode: the server fills it in.
func TestDefaultedRequired(t *testing.T) {
	schema := `{"type":"object","additionalProperties":false,` +
		`"properties":{"level":{"type":"string","enum":["info","error"],"default":"info"},"filename":{"type":"string"},` +
		`"opts":{"type":"object","properties":{"depth":{"type":"integer","default":1},"name":{"type":"string"}},"required":["depth","name"]},` +
		`"tabs":{"type":"array","items":{"type":"object","properties":{"index":{"type":"integer","default":0}},"required":["index"]}}},` +
		`"required":["level","opts"]}`
	r := newRig(t, proxy.WithStrict(true))
	r.list("1", "", toolsResult(toolJSON("console", schema)))
	r.passes(call("2", "console", `{"opts":{"name":"a"}}`))
	r.passes(call("3", "console", `{"opts":{"name":"a"},"tabs":[{},{"index":2}]}`))
	// The issues of each bad call, as code@path: none for a defaulted field.
	for _, tc := range []struct{ args, want string }{
		{`{"filename":1,"opts":{"name":"a"}}`, `invalid_type@filename`},
		{`{"opts":{}}`, `invalid_type@opts.name`},
		{`{}`, `invalid_type@opts`},
		{`{"opts":{"name":"a"},"tabs":[{"index":"0"}]}`, `invalid_type@tabs.0.index`},
		{`{"levle":"info","opts":{"name":"a"}}`, `unrecognized_keys@`},
	} {
		resp := r.answered(call("4", "console", tc.args))
		var res struct {
			StructuredContent struct {
				Issues []struct {
					Code string
					Path []any
				}
			}
		}
		if err := json.Unmarshal(resp.Result, &res); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, is := range res.StructuredContent.Issues {
			var path []string
			for _, e := range is.Path {
				path = append(path, fmt.Sprint(e))
			}
			got = append(got, is.Code+"@"+strings.Join(path, "."))
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: issues %q, want %q\n%s", tc.args, got, tc.want, resp.Result)
		}
	}
	r.finish()
}

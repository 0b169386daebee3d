package proxy_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// The tools the fake server lists.
const (
	writeSchema = `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"dryRun":{"type":"boolean"}},"required":["path","content"]}`
	editSchema  = `{"type":"object","additionalProperties":false,"properties":{"path":{"type":"string","minLength":1},"edits":{"type":"array","items":{"type":"object"}}},"required":["path","edits"]}`
	outSchema   = `{"type":"object","properties":{"ok":{"type":"boolean"}}}`
)

func toolJSON(name, in string) string {
	return `{"name":"` + name + `","description":"` + name + ` tool","inputSchema":` + in + `}`
}

func toolsResult(tools ...string) string {
	return `{"tools":[` + strings.Join(tools, ",") + `]}`
}

// listed is a rig whose server has listed write_file and edit_file.
func listed(t testing.TB, opts ...proxy.Option) *rig {
	r := newRig(t, opts...)
	r.list("1", "", toolsResult(toolJSON("write_file", writeSchema), toolJSON("edit_file", editSchema)))
	return r
}

// call is a tools/call request line.
func call(id, tool, args string) string {
	if args == "" {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `"}}` + "\n"
	}
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + tool + `","arguments":` + args + `}}` + "\n"
}

// viaGosdk returns the result mcp/gosdk gives for the same call of a tool
// with the same schemas, as JSON decoded into any: the answer the proxy
// must reproduce.
func viaGosdk(t *testing.T, name, in, out, args string, meta mcp.Meta, opts ...gosdk.Option) any {
	t.Helper()
	tool := &mcp.Tool{Name: name, Description: name + " tool", InputSchema: json.RawMessage(in)}
	if out != "" {
		tool.OutputSchema = json.RawMessage(out)
	}
	// Near misses in open schemas, on by default in the proxy.
	opts = append([]gosdk.Option{gosdk.WithSchemaOptions(jsonschemav6.WithTypos(true))}, opts...)
	_, h, err := gosdk.Handler(tool, func(context.Context, *mcp.CallToolRequest, map[string]any) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ran"}}}, nil, nil
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	params := &mcp.CallToolParamsRaw{Name: name, Meta: meta}
	if args != "" {
		params.Arguments = json.RawMessage(args)
	}
	res, err := h(context.Background(), &mcp.CallToolRequest{Params: params})
	if err != nil {
		t.Fatal(err)
	}
	return decodeAny(t, mustMarshal(t, res))
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func decodeAny(t testing.TB, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatalf("%s: %v", data, err)
	}
	return v
}

// A bad call of a listed tool is answered with the request's own id (as
// written, whatever the spacing) and exactly the result mcp/gosdk gives
// for the same tool and arguments, plus what the server said when it
// rejected the call first. By default the call is forwarded and the answer
// takes the place of the server's rejection, except for a near miss of a
// declared key, answered before forwarding; arguments nested too deep are
// checked down to the depth limit, and when nothing above it is wrong the
// server's rejection passes as it is. With
// WithStrict every bad call is answered before forwarding.
func TestBadCallAnswered(t *testing.T) {
	const (
		explained = iota // forwarded, and the server's rejection explained
		before           // answered before forwarding, in every mode
		unchecked        // forwarded unchecked by default, refused when strict
	)
	for _, tc := range []struct {
		name, id, wantID, tool, args string
		by                           int
	}{
		{"number id", `1`, `1`, "write_file", `{"path":"/a","contents":"x"}`, before},
		{"near miss in an open schema", `1`, `1`, "write_file", `{"path":"/a","content":"x","dryrun":true}`, before},
		{"near miss in a closed schema", `1`, `1`, "edit_file", `{"path":"/a","edit":[]}`, before},
		{"unknown key close to a property sent", `1`, `1`, "edit_file", `{"path":"/a","edits":[],"Path":"/b"}`, explained},
		{"spaced number id", ` 42 `, `42`, "write_file", `{"path":"/a"}`, explained},
		{"integer written as a float", `4.0`, `4.0`, "write_file", `{"path":"/a"}`, explained},
		{"string id", `"req-7"`, `"req-7"`, "write_file", `{"path":3,"content":"x"}`, explained},
		{"escaped string id", `"a\u0041"`, `"a\u0041"`, "edit_file", `{"path":"","edits":[],"dryrun":true}`, explained},
		{"absent arguments", `5`, `5`, "write_file", ``, explained},
		{"null arguments", `5`, `5`, "write_file", `null`, explained},
		{"array arguments", `5`, `5`, "edit_file", `[1,2]`, explained},
		{"string arguments", `5`, `5`, "edit_file", `"path=/a"`, explained},
		{"too deep", `6`, `6`, "edit_file", `{"path":"/a","edits":[{"free":` + strings.Repeat("[", 80) + strings.Repeat("]", 80) + `}]}`, unchecked},
		{"deeper than encoding/json reads", `6`, `6`, "edit_file", `{"path":"/a","edits":[` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `]}`, unchecked},
	} {
		for _, strict := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/strict=%v", tc.name, strict), func(t *testing.T) {
				noLeak(t, func(t *testing.T) {
					r := listed(t, proxy.WithStrict(strict))
					line := call(tc.id, tc.tool, tc.args)
					if tc.by == unchecked && !strict {
						r.passes(line)
						r.returns(`{"jsonrpc":"2.0","id":` + tc.wantID + `,"error":` + rejectionError + "}\n")
						r.finish()
						return
					}
					resp := r.answered(line)
					if want := tc.by == explained && !strict; resp.Forwarded != want {
						t.Errorf("forwarded first: %v, want %v", resp.Forwarded, want)
					}
					if string(resp.ID) != tc.wantID || resp.JSONRPC != "2.0" {
						t.Errorf("id %s (jsonrpc %q), want %s", resp.ID, resp.JSONRPC, tc.wantID)
					}
					schema := map[string]string{"write_file": writeSchema, "edit_file": editSchema}[tc.tool]
					want := viaGosdk(t, tc.tool, schema, "", tc.args, nil)
					if got := decodeAny(t, resp.Result); !reflect.DeepEqual(got, want) {
						t.Errorf("result\n got %s\nwant %s", resp.Result, mustMarshal(t, want))
					}
					r.finish()
				})
			})
		}
	}
}

// What the model reads, in full, for a misspelt key and a missing one.
func TestAnswerText(t *testing.T) {
	r := listed(t)
	resp := r.answered(call("3", "edit_file", `{"path":"/a","edit":[]}`))
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal(resp.Result, &res); err != nil {
		t.Fatal(err)
	}
	want := `<validation_error action="edit_file">
  <field name="edits">Missing. You sent: the unknown key 'edit'. Expected an array.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`
	if len(res.Content) != 1 || res.Content[0].Type != "text" || !res.IsError {
		t.Fatalf("result %s", resp.Result)
	}
	if res.Content[0].Text != want {
		t.Errorf("text\n%s\nwant\n%s", res.Content[0].Text, want)
	}
	r.finish()
}

// Valid calls, calls of tools not listed, notifications and every other
// message pass unchanged in both directions, including lines that are not
// JSON and malformed calls (the server answers those).
func TestPassThrough(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		r := listed(t)
		for _, line := range []string{
			call("2", "write_file", `{"path":"/a","content":"hello"}`),
			"{ \"jsonrpc\" : \"2.0\", \"id\" : 3 , \"method\":\"tools/call\",\"params\":{\"arguments\":{\"content\":\"x\",\"path\":\"/b\"},\"name\":\"write_file\"}}\r\n",
			call("4", "unknown_tool", `{"anything":1}`),
			`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write_file","arguments":{}}}` + "\n", // a notification
			`{"jsonrpc":"2.0","id":null,"method":"tools/call","params":{"name":"write_file","arguments":{}}}` + "\n",
			`{"jsonrpc":"2.0","id":{},"method":"tools/call","params":{"name":"write_file","arguments":{}}}` + "\n",
			`{"jsonrpc":"1.0","id":8,"method":"tools/call","params":{"name":"write_file","arguments":{}}}` + "\n",
			`{"id":8,"method":"tools/call","params":{"name":"write_file","arguments":{}}}` + "\n",
			`{"JSONRPC":"2.0","ID":8,"METHOD":"tools/call","PARAMS":{"name":"write_file","arguments":{}}}` + "\n", // keys are case-sensitive
			`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"Name":"write_file","arguments":{}}}` + "\n",
			`{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"\x"}}}` + "\n", // a bad escape
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_file","arguments":{}}} trailing` + "\n",
			`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_file","arguments":{}}` + "\n", // cut short
			`{"jsonrpc":"2.0","id":10,"method":"tools/call","params":"write_file"}` + "\n",
			`[{"jsonrpc":"2.0","id":11,"method":"tools/call","params":{"name":"write_file","arguments":{}}}]` + "\n", // a batch
			`{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","content":"x"}` + "\n",
			`{"jsonrpc":"2.0","id":13,"method":"resources/read","params":{"uri":"file:///a"}}` + "\n",
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}` + "\n",
			`{"jsonrpc":"2.0","id":"s1","result":{"content":[]}}` + "\n", // answers a server request
			"not json at all\n",
			"\n",
			"\x00\xff\xfe binary\n",
		} {
			r.passes(line)
		}
		for _, line := range []string{
			`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"ok"}]}}` + "\n",
			`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":0.5}}` + "\n",
			`{"jsonrpc":"2.0","id":"s1","method":"sampling/createMessage","params":{}}` + "\n",
			`{"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad"}}` + "\n",
			"server noise, not JSON\n",
			"\n",
		} {
			r.returns(line)
		}
		r.finish()
	})
}

// Pagination: every page is learned; a new listing (no cursor) replaces
// the tools once its last page has passed, and until then the tools it
// has not listed yet keep their old schemas.
func TestPaginatedListing(t *testing.T) {
	r := newRig(t)
	r.list(`"p1"`, "", `{"tools":[`+toolJSON("write_file", writeSchema)+`],"nextCursor":"c2"}`)
	r.list(`"p2"`, `,"params":{"cursor":"c2"}`, toolsResult(toolJSON("edit_file", editSchema)))
	r.answered(call("1", "write_file", `{}`))
	r.answered(call("2", "edit_file", `{}`))

	// A new listing: its first page changes write_file (content no longer
	// required); edit_file, not listed yet, keeps its schema.
	loose := `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`
	r.list(` 3 `, `,"params":{}`, `{"tools":[`+toolJSON("write_file", loose)+`],"nextCursor":"c2"}`)
	r.passes(call("4", "write_file", `{"path":"/a"}`))
	r.answered(call("5", "edit_file", `{}`))
	// Its last page lists a new tool and not edit_file: edit_file is gone.
	r.list(`4.0`, `,"params":{"cursor":"c2"}`, toolsResult(toolJSON("move_file", loose)))
	r.passes(call("6", "edit_file", `{}`))
	r.answered(call("7", "move_file", `{}`))
	r.finish()
}

// After notifications/tools/list_changed the proxy lists the tools itself,
// with ids of its own whose responses the client never sees, every page;
// until that listing ends, a call waits for it: a schema the server may
// have replaced never judges a call, and a near miss never passes because
// the tools were not known. A change announced during the listing starts
// another once it ends, and the call waits for that one too.
func TestListChanged(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		r := listed(t)
		const changed = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n"
		r.returns(changed)
		id := ownList(t, r.atServer(), "")
		held := call("2", "write_file", `{"path":"/a","content":"x","dryrun":true}`)
		r.fromClient(held) // stale: waits for the listing
		r.returns(changed) // again, during the listing

		newWrite := `{"type":"object","properties":{"path":{"type":"string"},"text":{"type":"string"},"dryRun":{"type":"boolean"}},"required":["path","text"]}`
		r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[` + toolJSON("write_file", newWrite) + `],"nextCursor":"c2"}}` + "\n")
		id = ownList(t, r.atServer(), "c2")
		r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"result":` + toolsResult() + "}\n")
		// The listing ended, but began before the second change: another.
		id = ownList(t, r.atServer(), "")
		r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"result":` + toolsResult(toolJSON("write_file", newWrite)) + "}\n")
		// Judged by the new schema: 'dryrun' is a near miss of dryRun,
		// answered before forwarding.
		resp := r.decodeAnswer(r.atClient())
		if string(resp.ID) != "2" || !strings.Contains(string(resp.Result), `'dryrun'`) {
			t.Errorf("the held call's answer: %s %s", resp.ID, resp.Result)
		}
		r.returns(`{"jsonrpc":"2.0","method":"notifications/sentinel"}` + "\n") // the responses did not reach the client

		r.passes(call("4", "write_file", `{"path":"/a","text":"x"}`))
		r.explained(call("5", "write_file", `{"path":"/a","content":"x"}`))
		r.passes(call("6", "edit_file", `{}`)) // no longer listed
		r.finish()
	})
}

// ownList checks that line is the proxy's own tools/list request (for the
// page after cursor, "" for the first) and returns its id.
func ownList(t *testing.T, line, cursor string) string {
	t.Helper()
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  map[string]any  `json:"params"`
	}
	if err := json.Unmarshal([]byte(line), &req); err != nil || req.JSONRPC != "2.0" || req.Method != "tools/list" ||
		!strings.HasPrefix(string(req.ID), `"selfheal-proxy/`) || !strings.HasSuffix(line, "\n") {
		t.Fatalf("not the proxy's own listing: %q", line)
	}
	if got, _ := req.Params["cursor"].(string); got != cursor {
		t.Fatalf("cursor %q, want %q: %q", got, cursor, line)
	}
	return string(req.ID)
}

// A tools/list result is recognised by its id only: a server request with
// the same id, an error response, and a response to another id teach
// nothing. A call that comes while the client's listing is under way
// waits for it; when it fails, the proxy lists the tools itself, and when
// that fails too the call passes unchecked, as do the calls after it for
// a while (listRetry).
func TestListMatchedByID(t *testing.T) {
	r := newRig(t)
	r.passes(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n")
	r.returns(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}` + "\n") // the server's own request
	r.returns(`{"jsonrpc":"2.0","id":2,"result":` + toolsResult(toolJSON("write_file", writeSchema)) + "}\n")
	held := call("3", "write_file", `{}`)
	r.fromClient(held) // waits for the client's listing
	r.returns(`{"jsonrpc":"2.0","id":1,"error":{"code":-1,"message":"no"}}` + "\n")
	id := ownList(t, r.atServer(), "")
	r.fromServer(`{"jsonrpc":"2.0","id":` + id + `,"error":{"code":-32601,"message":"no"}}` + "\n")
	if got := r.atServer(); got != held {
		t.Fatalf("forwarded %q, want %q", got, held)
	}
	r.returns(`{"jsonrpc":"2.0","id":1,"result":` + toolsResult(toolJSON("write_file", writeSchema)) + "}\n") // no longer awaited
	r.passes(call("4", "write_file", `{}`))
	// The same id spelt differently by the server is still recognised.
	r.passes(`{"jsonrpc":"2.0","id":"\u0078","method":"tools/list"}` + "\n")
	r.returns(`{"jsonrpc":"2.0","id":"x","result":` + toolsResult(toolJSON("write_file", writeSchema)) + "}\n")
	r.answered(call("5", "write_file", `{}`))
	r.finish()
}

// A tool with an output schema gets the issues in _meta, as from gosdk.
func TestOutputSchemaIssuesInMeta(t *testing.T) {
	r := newRig(t)
	tool := `{"name":"write_file","description":"write_file tool","inputSchema":` + writeSchema + `,"outputSchema":` + outSchema + `}`
	r.list("1", "", toolsResult(tool))
	args := `{"path":1}`
	resp := r.answered(call("2", "write_file", args))
	want := viaGosdk(t, "write_file", writeSchema, outSchema, args, nil)
	if got := decodeAny(t, resp.Result); !reflect.DeepEqual(got, want) {
		t.Errorf("result\n got %s\nwant %s", resp.Result, mustMarshal(t, want))
	}
	if !strings.Contains(string(resp.Result), `"_meta":{"selfheal/issues":{"issues":[`) || strings.Contains(string(resp.Result), "structuredContent") {
		t.Errorf("issues not in _meta: %s", resp.Result)
	}
	r.finish()
}

// The client's language: per call (_meta), else per session (initialize),
// else the engine's.
func TestLocale(t *testing.T) {
	r := newRig(t, proxy.WithEngine(selfheal.New(selfheal.WithExamples(false))))
	r.passes(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"_meta":{"selfheal/locale":"ja"},"protocolVersion":"2025-11-25"}}` + "\n")
	r.list("1", "", toolsResult(toolJSON("write_file", writeSchema)))
	args := `{"path":"/a"}`
	perSession := r.answered(call("2", "write_file", args))
	want := viaGosdk(t, "write_file", writeSchema, "", args, mcp.Meta{"selfheal/locale": "ja"}, gosdk.WithEngine(selfheal.New(selfheal.WithExamples(false))))
	if got := decodeAny(t, perSession.Result); !reflect.DeepEqual(got, want) {
		t.Errorf("initialize's locale\n got %s\nwant %s", perSession.Result, mustMarshal(t, want))
	}
	line := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":` + args + `,"_meta":{"selfheal/locale":"en"}}}` + "\n"
	perCall := r.answered(line)
	want = viaGosdk(t, "write_file", writeSchema, "", args, nil, gosdk.WithEngine(selfheal.New(selfheal.WithExamples(false))))
	if got := decodeAny(t, perCall.Result); !reflect.DeepEqual(got, want) {
		t.Errorf("the call's locale\n got %s\nwant %s", perCall.Result, mustMarshal(t, want))
	}
	r.finish()
}

// With a lockfile, the answer carries the tool's contract changes, as
// gosdk's does.
func TestContract(t *testing.T) {
	old, err := contract.NewTool("write_file", "write_file tool", json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path"]}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := contract.NewLock([]contract.Tool{old})
	if err != nil {
		t.Fatal(err)
	}
	r := listed(t, proxy.WithContract(lock))
	args := `{"path":"/a"}`
	resp := r.answered(call("2", "write_file", args))
	want := viaGosdk(t, "write_file", writeSchema, "", args, nil, gosdk.WithContract(lock))
	if got := decodeAny(t, resp.Result); !reflect.DeepEqual(got, want) {
		t.Errorf("result\n got %s\nwant %s", resp.Result, mustMarshal(t, want))
	}
	if !strings.Contains(string(resp.Result), "contract_awareness") {
		t.Errorf("no contract section: %s", resp.Result)
	}
	r.finish()
}

// A schema that does not compile is logged once and its tool's calls pass
// unchecked; the other tools are still checked.
func TestSchemaThatDoesNotCompile(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	r := newRig(t, proxy.WithLogger(logger))
	bad := `{"type":"object","properties":{"a":{"type":"nonsense"}}}`
	result := toolsResult(toolJSON("broken", bad), toolJSON("write_file", writeSchema), `{"name":42}`, `{"name":"noschema"}`)
	r.list("1", "", result)
	r.list("2", "", result) // listed again: not compiled or logged again
	r.passes(call("3", "broken", `{"a":1}`))
	r.passes(call("4", "noschema", `[]`))
	r.answered(call("5", "write_file", `{}`))
	r.finish()
	if n := strings.Count(logs.String(), "input schema does not compile"); n != 1 {
		t.Errorf("logged %d times:\n%s", n, logs.String())
	}
}

// A pattern no engine compiles is skipped and logged once per tool, with
// the pattern; the rest of the tool's schema still checks its calls, and
// a pattern written in ECMAScript's own syntax (a lookahead) is checked.
func TestPatternThatDoesNotCompile(t *testing.T) {
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	r := newRig(t, proxy.WithLogger(logger), proxy.WithStrict(true))
	schema := `{"type":"object","properties":{"id":{"type":"string","pattern":"(unclosed"},` +
		`"user":{"type":"string","pattern":"^(?!admin)[a-z]+$"},"n":{"type":"integer"}}}`
	result := toolsResult(toolJSON("lookup", schema))
	r.list("1", "", result)
	r.list("2", "", result) // listed again: not compiled or logged again
	r.passes(call("3", "lookup", `{"id":"anything at all","user":"bob","n":1}`))
	resp := r.answered(call("4", "lookup", `{"id":"x","user":"admin","n":"1"}`))
	text := string(resp.Result)
	for _, want := range []string{`name=\"n\"`, `name=\"user\"`} {
		if !strings.Contains(text, want) {
			t.Errorf("the answer does not name %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, `name=\"id\"`) {
		t.Errorf("the skipped pattern was checked:\n%s", text)
	}
	r.finish()
	if n := strings.Count(logs.String(), "patterns of a tool's input schema do not compile"); n != 1 ||
		!strings.Contains(logs.String(), "(unclosed") || !strings.Contains(logs.String(), "tool=lookup") {
		t.Errorf("logged %d times:\n%s", n, logs.String())
	}
}

// Lines of 5 MiB pass intact both ways, one checked and valid, one a result.
func TestHugeLines(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		r := listed(t)
		big := strings.Repeat("x", 5<<20)
		r.passes(call("2", "write_file", `{"path":"/big","content":"`+big+`"}`))
		r.returns(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"` + big + `"}]}}` + "\n")
		r.passes(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}` + "\n")
		// A bad call of 5 MiB is answered, with the value cut.
		resp := r.answered(call("3", "write_file", `{"path":1,"content":"`+big+`"}`+"    "))
		if len(resp.Result) > 64<<10 {
			t.Errorf("answer of %d bytes", len(resp.Result))
		}
		r.passes("small after big\n")
		r.finish()
	})
}

// The client's last line without a newline is forwarded as it is, then
// the server's input is closed; the server's last line, also without one,
// reaches the client before Serve returns.
func TestClientEOF(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		r := listed(t)
		r.fromClient(call("2", "write_file", `{"path":"/a","content":"x"}`))
		r.fromClient(`{"jsonrpc":"2.0","method":"notifications/last"}`) // no newline
		r.atServer()
		r.client.Close() // the last line ends here
		if got := r.atServer(); got != `{"jsonrpc":"2.0","method":"notifications/last"}` {
			t.Errorf("last line %q", got)
		}
		if l, ok := <-r.toServer; ok {
			t.Fatalf("line after the client's end: %q", l)
		}
		// The server answers after its input closed, then ends.
		r.fromServer(`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n")
		if got := r.atClient(); got != `{"jsonrpc":"2.0","id":2,"result":{}}`+"\n" {
			t.Errorf("got %q", got)
		}
		select {
		case err := <-r.done:
			t.Fatalf("Serve returned before the server ended: %v", err)
		default:
		}
		r.fromServer(`{"jsonrpc":"2.0","method":"bye"}`)
		r.server.Close()
		if err := <-r.done; err != nil {
			t.Fatal(err)
		}
		r.tcw.Close() // the collector reads a last line without newline at the end
		if got := r.atClient(); got != `{"jsonrpc":"2.0","method":"bye"}` {
			t.Errorf("got %q", got)
		}
	})
}

// When the server ends first, Serve returns nil at once, whatever the
// client does; a read under way from the client ends with the client.
func TestServerEndsFirst(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		r := listed(t)
		r.server.Close()
		select {
		case err := <-r.done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(wait):
			t.Fatal("Serve did not return")
		}
		r.fromClient("dropped\n") // read by the goroutine still reading, dropped
		r.client.Close()
		r.tcw.Close()
		r.tsw.Close()
	})
}

// Serve returns ctx's error when ctx ends.
func TestContextCancelled(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		r := listed(t)
		r.cancel()
		if err := <-r.done; err != context.Canceled {
			t.Fatalf("Serve: %v", err)
		}
		r.client.Close()
		r.server.Close()
		r.tcw.Close()
		r.tsw.Close()
	})
}

// A failure to write to the client ends Serve with that error.
func TestClientWriteError(t *testing.T) {
	r := listed(t)
	r.tcw.Close()
	r.fromServer("anything\n")
	if err := <-r.done; err == nil || !strings.Contains(err.Error(), "writing to the client") {
		t.Fatalf("Serve: %v", err)
	}
}

// writeAll writes lines to w, from any goroutine.
func writeAll(t *testing.T, w io.Writer, lines []string) {
	for _, l := range lines {
		if _, err := io.WriteString(w, l); err != nil {
			t.Errorf("write: %v", err)
			return
		}
	}
}

// Messages in both directions, sent at the same time, keep their order;
// each bad call is answered once: before forwarding with WithStrict, else
// in the place of the server's rejection, in the order the server wrote.
func TestOrderUnderInterleaving(t *testing.T) {
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict=%v", strict), func(t *testing.T) {
			noLeak(t, func(t *testing.T) { interleave(t, strict) })
		})
	}
}

func interleave(t *testing.T, strict bool) {
	r := listed(t, proxy.WithStrict(strict))
	const n = 500
	var fromClient, forwarded, fromServer []string
	answers := map[string]bool{}   // the calls answered before forwarding
	explained := map[string]bool{} // the server's lines answered in their place
	for i := range n {
		var line string
		id := fmt.Sprint(100 + i)
		switch i % 4 {
		case 0:
			line = call(id, "write_file", `{"path":"/a","content":"x"}`)
			forwarded = append(forwarded, line)
		case 1:
			line = call(id, "write_file", `{"path":"/a"}`)
			if strict {
				answers[id] = true
			} else {
				forwarded = append(forwarded, line)
			}
		case 2:
			line = fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"n":%d}}`+"\n", i)
			forwarded = append(forwarded, line)
		case 3:
			line = fmt.Sprintf("garbage %d\n", i)
			forwarded = append(forwarded, line)
		}
		fromClient = append(fromClient, line)
		fromServer = append(fromServer, fmt.Sprintf(`{"jsonrpc":"2.0","method":"notifications/message","params":{"n":%d}}`+"\n", i))
	}
	var wg sync.WaitGroup
	wg.Go(func() { writeAll(t, r.client, fromClient) })
	if strict { // both directions at once
		wg.Go(func() { writeAll(t, r.server, fromServer) })
	}
	for i, want := range forwarded {
		if got := r.atServer(); got != want {
			t.Fatalf("line %d at the server: %q, want %q", i, got, want)
		}
	}
	if !strict { // the server rejects the bad calls it got, among its other lines
		wg.Wait()
		var lines []string
		for i, l := range fromServer {
			lines = append(lines, l)
			if i%4 == 1 {
				rej := rejectionOf(t, call(fmt.Sprint(100+i), "write_file", `{}`))
				lines = append(lines, rej)
				explained[rej] = true
			}
		}
		fromServer = lines
		wg.Go(func() { writeAll(t, r.server, fromServer) })
	}
	next := 0
	for next < len(fromServer) || len(answers) > 0 {
		got := r.atClient()
		if next < len(fromServer) && got == fromServer[next] && !explained[got] {
			next++
			continue
		}
		var resp response
		if err := json.Unmarshal([]byte(got), &resp); err != nil || !strings.Contains(string(resp.Result), "validation_error") {
			t.Fatalf("unexpected line at the client: %q", got)
		}
		switch {
		case answers[string(resp.ID)]:
			delete(answers, string(resp.ID))
		case next < len(fromServer) && explained[fromServer[next]] && strings.Contains(fromServer[next], `"id":`+string(resp.ID)+`,`):
			next++
		default:
			t.Fatalf("unexpected answer at the client: %q", got)
		}
	}
	wg.Wait()
	r.finish()
}

// The guard answers the calls beyond its limits, holds a slot until the
// server's response passes, and frees it when the client cancels.
func TestGuard(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		var log bytes.Buffer
		// Strict, so that bad arguments are answered before the guard.
		r := listed(t, proxy.WithStrict(true), proxy.WithGuard(guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue}), proxy.WithCallLog(&log))
		r.passes(call("2", "write_file", `{"path":"/a","content":"x"}`))
		busy := r.answered(call("3", "write_file", `{"path":"/a","content":"x"}`))
		if !strings.Contains(string(busy.Result), `code=\"SERVER_BUSY\"`) || !strings.Contains(string(busy.Result), `"isError":true`) || string(busy.ID) != "3" {
			t.Errorf("busy: %s %s", busy.ID, busy.Result)
		}
		r.passes(call("4", "edit_file", `{"path":"/a","edits":[]}`))         // another tool, another guard
		r.answered(call("5", "write_file", `{"path":"/a"}`))                 // bad arguments: told what to fix first
		r.passes(call("6", "unlisted", `{}`))                                // not a listed tool: not guarded
		r.returns(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}` + "\n") // frees the slot
		r.passes(call("7", "write_file", `{"path":"/a","content":"x"}`))
		r.passes(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}` + "\n") // frees it too
		r.passes(call("8", "write_file", `{"path":"/a","content":"x"}`))
		r.finish()
		if got := strings.Count(log.String(), `"answer":"SERVER_BUSY"`); got != 1 {
			t.Errorf("call log:\n%s", log.String())
		}
	})
}

// A call above the rate is answered RATE_LIMITED with a retry_after.
func TestGuardRate(t *testing.T) {
	r := listed(t, proxy.WithGuard(guard.Limits{Rate: 1.0 / 60, Burst: 1}))
	r.passes(call("2", "write_file", `{"path":"/a","content":"x"}`))
	resp := r.answered(call("3", "write_file", `{"path":"/a","content":"x"}`))
	if !strings.Contains(string(resp.Result), "RATE_LIMITED") || !strings.Contains(string(resp.Result), "retry_after") {
		t.Errorf("%s", resp.Result)
	}
	r.finish()
}

// A call that must wait for a slot does not hold back the messages behind
// it; it is forwarded when the slot frees up, unless the client cancels it.
func TestGuardQueue(t *testing.T) {
	noLeak(t, func(t *testing.T) {
		r := listed(t, proxy.WithGuard(guard.Limits{MaxActive: 1, MaxQueued: 5}))
		first := call("2", "write_file", `{"path":"/a","content":"1"}`)
		queued := call("3", "write_file", `{"path":"/a","content":"2"}`)
		cancelled := call("4", "write_file", `{"path":"/a","content":"3"}`)
		r.passes(first)
		r.fromClient(queued, cancelled)
		r.passes(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}` + "\n")
		r.passes(sentinel) // not held back behind the queued calls
		r.returns(`{"jsonrpc":"2.0","id":2,"result":{}}` + "\n")
		if got := r.atServer(); got != queued {
			t.Fatalf("got %q, want the queued call", got)
		}
		// The client ends while a call waits: it is forwarded before the
		// server's input closes.
		last := call("5", "write_file", `{"path":"/a","content":"4"}`)
		r.fromClient(last)
		r.passes(sentinel)
		r.client.Close()
		r.returns(`{"jsonrpc":"2.0","id":3,"result":{}}` + "\n")
		if got := r.atServer(); got != last {
			t.Fatalf("got %q, want the last call", got)
		}
		r.returns(`{"jsonrpc":"2.0","id":5,"result":{}}` + "\n")
		r.finish()
	})
}

// The call log has one line per answered call, with codes and paths and
// none of the values sent; the observer sees every call of a listed tool.
func TestCallLogAndObserver(t *testing.T) {
	var log bytes.Buffer
	var mu sync.Mutex
	var events []proxy.Event
	r := listed(t, proxy.WithCallLog(&log), proxy.WithObserver(func(ev proxy.Event) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}))
	secret := "hunter2-" + strings.Repeat("s", 200)
	r.answered(call("2", "write_file", `{"path":1,"content":"`+secret+`","`+secret+`":true}`))
	r.passes(call("3", "write_file", `{"path":"/a","content":"x"}`))
	r.passes(call("4", "unlisted", `{}`))
	r.finish()
	// The answer, its settlement by call 3 (see TestOutcomes) and the
	// tally of the calls at the session's end.
	lines := strings.Split(strings.TrimSuffix(log.String(), "\n"), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], `"outcome":"repaired"`) || !strings.HasSuffix(lines[2], `"calls":{"write_file":2}}`) {
		t.Fatalf("call log:\n%s", log.String())
	}
	var entry map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &entry); err != nil {
		t.Fatal(err)
	}
	if _, err := time.Parse(time.RFC3339, entry["time"].(string)); err != nil {
		t.Errorf("time: %v", err)
	}
	if entry["tool"] != "write_file" || entry["answer"] != "validation_error" ||
		fmt.Sprint(entry["codes"]) != "[invalid_type]" || fmt.Sprint(entry["paths"]) != "[path]" {
		t.Errorf("entry %s", lines[0])
	}
	if strings.Contains(log.String(), "hunter2") {
		t.Errorf("a value sent is in the call log: %s", log.String())
	}
	if len(events) != 2 || !events[0].Answered || events[0].Code != "VALIDATION_ERROR" || events[0].Tool != "write_file" ||
		fmt.Sprint(events[0].Issues) != "[invalid_type]" || events[1].Answered || events[1].Code != "" {
		t.Errorf("events %+v", events)
	}
}

// Keys a model sent are cut in the call log's paths.
func TestCallLogCutsKeys(t *testing.T) {
	var log bytes.Buffer
	r := listed(t, proxy.WithCallLog(&log))
	long := strings.Repeat("k", 5000)
	r.answered(call("2", "edit_file", `{"path":"/a","edits":[{"`+long+`":1}],"x":{"`+long+`":{"y":1}}}`))
	r.finish()
	if log.Len() > 1000 || strings.Contains(log.String(), strings.Repeat("k", 100)) {
		t.Errorf("call log of %d bytes: %.300s", log.Len(), log.String())
	}
}

// WithMaxDepth sets the nesting limit of arguments (refused when strict,
// see TestDepthPolicy).
func TestMaxDepth(t *testing.T) {
	r := listed(t, proxy.WithStrict(true), proxy.WithMaxDepth(3))
	r.passes(call("2", "edit_file", `{"path":"/a","edits":[{}]}`))
	resp := r.answered(call("3", "edit_file", `{"path":"/a","edits":[{"a":[]}]}`))
	if !strings.Contains(string(resp.Result), `"origin":"depth"`) {
		t.Errorf("%s", resp.Result)
	}
	r.finish()
	r = listed(t, proxy.WithStrict(true), proxy.WithMaxDepth(-1))
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	r.passes(call("2", "edit_file", `{"path":"/a","edits":[{"a":`+deep+`}]}`))
	r.finish()
}

// Setup errors are New's.
func TestNewErrors(t *testing.T) {
	if _, err := proxy.New(proxy.WithGuard(guard.Limits{MaxActive: -1})); err == nil {
		t.Error("negative MaxActive accepted")
	}
	if _, err := proxy.New(proxy.WithGuard(guard.Limits{Rate: -1})); err == nil {
		t.Error("negative Rate accepted")
	}
	if _, err := proxy.New(nil, proxy.WithTypos(false), proxy.WithContract(nil)); err != nil {
		t.Error(err)
	}
}

// One proxy serves several sessions at once, each with its own tools.
func TestConcurrentSessions(t *testing.T) {
	p, err := proxy.New()
	if err != nil {
		t.Fatal(err)
	}
	for i := range 4 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			r := serveRig(t, p)
			schema := writeSchema
			if i%2 == 1 {
				schema = `{"type":"object"}`
			}
			r.list("1", "", toolsResult(toolJSON("write_file", schema)))
			for j := range 20 {
				if i%2 == 1 {
					r.passes(call(fmt.Sprint(j), "write_file", `{}`))
				} else {
					r.answered(call(fmt.Sprint(j), "write_file", `{}`))
				}
			}
			r.finish()
		})
	}
}

// Names are read as JSON means them: a method or a tool name written with
// escapes is the same name, and whitespace anywhere changes nothing.
func TestEscapedNames(t *testing.T) {
	r := listed(t)
	resp := r.answered("  {\"params\" : {\"arguments\":{} , \"name\":\"write\\u005ffile\"},\t\"method\":\"tools\\/call\", \"id\" : \"x\",\"jsonrpc\":\"2.0\"}  \r\n")
	if string(resp.ID) != `"x"` {
		t.Errorf("id %s", resp.ID)
	}
	r.finish()
}

// A near miss of a declared key is answered even when the schema is open,
// unless WithTypos(false).
func TestTypos(t *testing.T) {
	misspelt := call("2", "write_file", `{"path":"/a","content":"x","dryrun":true}`)
	r := listed(t)
	resp := r.answered(misspelt)
	if !strings.Contains(string(resp.Result), "did you mean 'dryRun'?") {
		t.Errorf("%s", resp.Result)
	}
	r.finish()
	r = listed(t, proxy.WithTypos(false))
	r.passes(misspelt)
	r.finish()
}

// recordingLimiter admits up to max calls at once per key, as a shared
// limiter would, and records the keys it is asked about.
type recordingLimiter struct {
	mu     sync.Mutex
	max    int
	active map[string]int
	keys   []string
}

func (l *recordingLimiter) Acquire(_ context.Context, key string) (func(), *envelope.ToolError) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys = append(l.keys, key)
	if l.active[key] >= l.max {
		return nil, &envelope.ToolError{Code: envelope.ServerBusy, Severity: envelope.SeverityError, Message: "busy", Recovery: "wait"}
	}
	l.active[key]++
	return func() {
		l.mu.Lock()
		l.active[key]--
		l.mu.Unlock()
	}, nil
}

// WithLimiter admits the calls of listed tools, in order, by tool name;
// the slot is held until the response passes.
func TestLimiter(t *testing.T) {
	lim := &recordingLimiter{max: 1, active: map[string]int{}}
	r := listed(t, proxy.WithLimiter(lim))
	r.passes(call("2", "write_file", `{"path":"/a","content":"x"}`))
	busy := r.answered(call("3", "write_file", `{"path":"/a","content":"x"}`))
	if !strings.Contains(string(busy.Result), `code=\"SERVER_BUSY\"`) {
		t.Errorf("busy: %s", busy.Result)
	}
	r.passes(call("4", "edit_file", `{"path":"/a","edits":[]}`))
	r.returns(`{"jsonrpc":"2.0","id":2,"result":{"content":[]}}` + "\n")
	r.passes(call("5", "write_file", `{"path":"/a","content":"x"}`))
	r.finish()
	if got, want := fmt.Sprint(lim.keys), "[write_file write_file edit_file write_file]"; got != want {
		t.Errorf("keys %s, want %s", got, want)
	}
}

func TestGuardAndLimiterExclusive(t *testing.T) {
	_, err := proxy.New(proxy.WithGuard(guard.Limits{MaxActive: 1}), proxy.WithLimiter(&recordingLimiter{}))
	if err == nil || err.Error() != "proxy: WithGuard and WithLimiter both set; choose one" {
		t.Errorf("err = %v", err)
	}
}

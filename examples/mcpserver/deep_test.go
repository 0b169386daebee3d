package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/envelope"
)

// nested is {"name":…,"a":[[…]]} with the arrays making the whole object
// depth levels deep.
func nested(depth int) string {
	return `{"name":"Ada","a":` + strings.Repeat("[", depth-1) + "1" + strings.Repeat("]", depth-1) + "}"
}

// Over the server's stdio transport, with go-sdk's client on the other
// end: arguments too deep for go-sdk are answered with a validation_error
// instead of ending the session, and the session goes on.
func TestDeepArgumentsKeepTheSession(t *testing.T) {
	s, log := newTestServer(t, NewStore(), DefaultLimits)
	toServer, serverIn := io.Pipe()
	serverOut, toClient := io.Pipe()
	logger := slog.New(slog.NewTextHandler(log, nil))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, stdioTransport(toServer, toClient, selfheal.New(), logger)) }()
	t.Cleanup(func() {
		cancel()
		_ = serverIn.Close()
		<-done
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "deep", Version: "1"}, nil).Connect(ctx,
		&mcp.IOTransport{Reader: serverOut, Writer: serverIn}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()

	for _, tc := range []struct {
		depth int
		by    string // who answers: the transport, or the tool (gosdk)
	}{
		{2000, "transport"}, // past go-sdk's 1000: it would end the session
		{9000, "transport"},
		{500, "tool"}, // within go-sdk's limit, past ours
		{65, "tool"},
	} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "users.create", Arguments: json.RawMessage(nested(tc.depth))})
		if err != nil {
			t.Fatalf("depth %d: %v", tc.depth, err)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !res.IsError || len(text) >= 4096 || strings.Count(text, "<field ") != 1 ||
			!strings.Contains(text, "Nested too deeply. You sent: an array whose nesting depth exceeds 64.") {
			t.Fatalf("depth %d: isError %v, %d bytes:\n%s", tc.depth, res.IsError, len(text), text)
		}
		if _, err := envelope.Parse(text); err != nil {
			t.Errorf("depth %d: %v", tc.depth, err)
		}
		// The tool's own answer carries the issues; the transport's only
		// the text.
		if _, has := res.Meta["selfheal/issues"]; has != (tc.by == "tool") {
			t.Errorf("depth %d: answered by the %s, yet _meta %v", tc.depth, tc.by, res.Meta)
		}
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "billing.get_invoice", Arguments: map[string]any{"id": "inv_2026_0002"}})
	if err != nil || res.IsError {
		t.Fatalf("after the deep calls: %v %+v", err, res)
	}
	if !strings.Contains(log.String(), "refused a tool call whose arguments nest deeper than go-sdk's limit") {
		t.Errorf("not logged:\n%s", log.String())
	}
}

// The filter itself, on raw lines: what go-sdk can read passes byte for
// byte; what it cannot is answered by id, or dropped when it has none.
func TestDepthFilter(t *testing.T) {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"c-2","method":"tools/call","params":{"name":"users.create","arguments":{"x":` + deep(30000) + `}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"x":` + deep(1000) + `}}}`,
		`{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":` + deep(1000) + `}}`,
		`{"jsonrpc":"2.0","id":{"bad":1},"method":"ping","params":{"x":` + deep(1000) + `}}`,
		` {"jsonrpc":"2.0","id":4,"method":"ping","params":{"x":"` + strings.Repeat("[", 5000) + `"}}`,
		`{"jsonrpc":"2.0","id":5,"method":"ping"}`, // the last line, without a newline
	}, "\n")
	var out, log bytes.Buffer
	f := &depthFilter{out: &out, engine: selfheal.New(), logger: slog.New(slog.NewTextHandler(&log, nil))}
	pr, pw := io.Pipe()
	go f.run(strings.NewReader(in), pw)
	passed, err := io.ReadAll(pr)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(in, "\n")
	if want := lines[0] + "\n" + lines[5] + "\n" + lines[6]; string(passed) != want {
		t.Errorf("passed on:\n%.300s\nwant:\n%.300s", passed, want)
	}
	var answers []map[string]any
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, sc.Bytes())
		}
		answers = append(answers, m)
	}
	if len(answers) != 2 {
		t.Fatalf("%d answers: %s", len(answers), out.String())
	}
	result, _ := answers[0]["result"].(map[string]any)
	text, _ := result["content"].([]any)[0].(map[string]any)["text"].(string)
	if answers[0]["id"] != "c-2" || result["isError"] != true || !strings.HasPrefix(text, `<validation_error action="users.create">`) ||
		!strings.Contains(text, `<field name="x[0][0]`) || !strings.Contains(text, "Nested too deeply.") {
		t.Errorf("tools/call answer: %v", answers[0])
	}
	e, _ := answers[1]["error"].(map[string]any)
	if answers[1]["id"] != 3.0 || e["code"] != -32600.0 {
		t.Errorf("ping answer: %v", answers[1])
	}
	if n := strings.Count(log.String(), "no id to answer"); n != 2 {
		t.Errorf("%d drops logged, want 2:\n%s", n, log.String())
	}
}

func TestMember(t *testing.T) {
	obj := []byte(` {"a" : [1, {"b": "}"}], "k\"ey": "v", "c": {"d": [[[]]]}, "e":5 } `)
	for key, want := range map[string]string{
		"a": `[1, {"b": "}"}]`, `k"ey`: `"v"`, "c": `{"d": [[[]]]}`, "e": "5", "missing": "",
	} {
		if got := string(member(obj, key)); got != want {
			t.Errorf("member(%q) = %q, want %q", key, got, want)
		}
	}
	for _, bad := range []string{``, `[1]`, `{"a" 1}`, `{"a":1 "b":2}`, `{"a`, `{a:1}`} {
		if got := member([]byte(bad), "b"); got != nil {
			t.Errorf("member(%q) = %q", bad, got)
		}
	}
}

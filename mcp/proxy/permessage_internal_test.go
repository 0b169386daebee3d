package proxy

import (
	"context"
	"io"
	"strings"
	"testing"
)

// echoTools is the tools/list result of bench/relay's echoserver.
const echoTools = `{"tools":[` +
	`{"name":"write_file","description":"Write a file.","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}},` +
	`{"name":"read","description":"Read size bytes.","inputSchema":{"type":"object","properties":{"size":{"type":"integer","minimum":0}},"required":["size"]}}]}`

// Lines of bench/relay at 100 bytes: a valid call, a result, a bad call
// (path a number) and the server's rejection of it.
var (
	benchCall      = []byte(`{"jsonrpc":"2.0","id":"c000000001","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/out.txt","content":"` + strings.Repeat("x", 66) + `"}}}` + "\n")
	benchResult    = []byte(`{"jsonrpc":"2.0","id":"c000000001","result":{"content":[{"type":"text","text":"` + strings.Repeat("x", 68) + `"}]}}` + "\n")
	benchBad       = []byte(`{"jsonrpc":"2.0","id":"c000000001","method":"tools/call","params":{"name":"write_file","arguments":{"path":7,"content":"` + strings.Repeat("x", 66) + `"}}}` + "\n")
	benchRejection = []byte(`{"jsonrpc":"2.0","id":"c000000001","error":{"code":-32602,"message":"Invalid arguments for tool write_file: path: expected string"}}` + "\n")
)

// echoSession is a session that knows echoTools and writes to io.Discard:
// the work of one message, without the pipes.
func echoSession(tb testing.TB, opts ...Option) *session {
	tb.Helper()
	p, err := New(opts...)
	if err != nil {
		tb.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tb.Cleanup(cancel)
	s := &session{
		p: p, ctx: ctx, cancel: cancel,
		toClient: io.Discard, toServer: io.Discard,
		lists: map[string]bool{}, calls: map[string]func(){},
		queued: map[string]*queuedCall{}, guards: map[string]*toolGuard{},
	}
	if _, ok := s.tools.learn(p, []byte(echoTools), true); !ok {
		tb.Fatal("echoTools not learned")
	}
	return s
}

// The allocations of a message on its way through (issue 29): a response
// or a notification passes without any while the session awaits no
// response; a call of a tool the proxy does not know costs its tool's name;
// a valid call adds the decoded arguments (a copy of their bytes, the map,
// its two strings) and the validator's own (jsonschema/v6: 12).
func TestAllocsPerMessage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		fromServer bool
		line       string
		allocs     float64
	}{
		{"result", true, string(benchResult), 0},
		{"error", true, string(benchRejection), 0},
		{"progress", true, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"t","progress":1}}` + "\n", 0},
		{"request of the server's", true, `{"jsonrpc":"2.0","id":1,"method":"roots/list"}` + "\n", 0},
		{"response of the client's", false, `{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}` + "\n", 0},
		{"ping", false, `{"jsonrpc":"2.0","id":"p","method":"ping"}` + "\n", 0},
		{"call of an unknown tool", false, `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"other","arguments":{}}}` + "\n", 1},
		{"valid call", false, string(benchCall), 18},
	} {
		s := echoSession(t)
		line := []byte(tc.line)
		got := testing.AllocsPerRun(100, func() {
			if tc.fromServer {
				if out := s.serverMessage(line); len(out) != len(line) {
					t.Fatalf("%s: %q passed as %q", tc.name, line, out)
				}
			} else if err := s.clientMessage(line); err != nil {
				t.Fatal(err)
			}
		})
		if got != tc.allocs {
			t.Errorf("%s: %v allocations, want %v", tc.name, got, tc.allocs)
		}
	}
}

func BenchmarkValidCall(b *testing.B) {
	s := echoSession(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.clientMessage(benchCall); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkResult(b *testing.B) {
	s := echoSession(b)
	b.ReportAllocs()
	for b.Loop() {
		if out := s.serverMessage(benchResult); out == nil {
			b.Fatal("dropped")
		}
	}
}

func BenchmarkBadCallExplained(b *testing.B) {
	s := echoSession(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := s.clientMessage(benchBad); err != nil {
			b.Fatal(err)
		}
		if out := s.serverMessage(benchRejection); len(out) == len(benchRejection) {
			b.Fatal("not explained")
		}
	}
}

// A valid call of revision 2026-07-28 (its _meta, a listing with a ttlMs)
// costs what a 2025 one costs: its revision is read only for an answer.
func TestAllocsStatelessCall(t *testing.T) {
	s := echoSession(t)
	tools := strings.TrimSuffix(echoTools, "}") + `,"ttlMs":60000,"cacheScope":"private"}`
	if _, ok := s.tools.learn(s.p, []byte(tools), true); !ok {
		t.Fatal("not learned")
	}
	meta := `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	line := []byte(strings.Replace(string(benchCall), `}}}`, `}`+meta+`}}`, 1))
	got := testing.AllocsPerRun(100, func() {
		if err := s.clientMessage(line); err != nil {
			t.Fatal(err)
		}
	})
	if got != 18 {
		t.Errorf("%v allocations, want 18 as for a 2025 call", got)
	}
}

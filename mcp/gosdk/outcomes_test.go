package gosdk_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/internal/repair"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

type Write struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// outcomes collects WithOutcomes' reports, on a clock the test moves.
type outcomes struct {
	mu  sync.Mutex
	got []string
	now time.Time
}

func (o *outcomes) report(r gosdk.Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, fmt.Sprintf("%s %s %d", r.Tool, r.Outcome, r.Attempt))
}

func (o *outcomes) clock() time.Time { o.mu.Lock(); defer o.mu.Unlock(); return o.now }

func (o *outcomes) wait(d time.Duration) { o.mu.Lock(); o.now = o.now.Add(d); o.mu.Unlock() }

func (o *outcomes) list() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.got)
}

// option is WithOutcomes with the test's clock and a bound of a minute.
func (o *outcomes) option() gosdk.Option {
	o.now = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	tr := repair.New(o.report, repair.Limits{Within: time.Minute}, o.clock)
	return func(c *toolcall.Config) { c.Outcomes, c.Repairs = o.report, tr }
}

func writeServer(opts ...gosdk.Option) *mcp.Server {
	s := newServer()
	h := func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
	}
	gosdk.AddTool(s, &mcp.Tool{Name: "write"}, h, opts...)
	gosdk.AddTool(s, &mcp.Tool{Name: "read"}, h, opts...)
	return s
}

// callTool calls a tool and says whether selfheal answered it.
func callTool(t *testing.T, cs *mcp.ClientSession, tool, args string) bool {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatal(err)
	}
	return res.IsError
}

const (
	goodWrite = `{"path":"/a","content":"x"}`
	noContent = `{"path":"/a"}`
	badPath   = `{"path":1,"content":"x"}`
)

// A real client session (go-sdk's, in memory) through AddTool and
// through Middleware: every way an answer settles.
func TestOutcomes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string // "tool args", then "wait" moves the clock past the bound
		want  []string
	}{
		{"bad then good: repaired", []string{"write " + noContent, "write " + goodWrite}, []string{"write repaired 1"}},
		{"bad, bad on the same field, good", []string{"write " + noContent, "write " + noContent, "write " + goodWrite},
			[]string{"write failed_same 1", "write repaired 2"}},
		{"bad, bad on another field", []string{"write " + noContent, "write " + badPath}, []string{"write failed_other 1"}},
		{"interleaved tools", []string{"write " + noContent, "read " + noContent, "read " + goodWrite, "write " + goodWrite},
			[]string{"read repaired 1", "write repaired 1"}},
		{"bad then silence: abandoned at the bound", []string{"write " + noContent, "wait", "read " + goodWrite, "write " + goodWrite},
			[]string{"write abandoned 1"}},
	} {
		for _, via := range []string{"AddTool", "Middleware"} {
			t.Run(tc.name+" via "+via, func(t *testing.T) {
				var o outcomes
				opt := o.option()
				var s *mcp.Server
				if via == "AddTool" {
					s = writeServer(opt)
				} else {
					s = newServer()
					h := func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
						return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil, nil
					}
					mcp.AddTool(s, &mcp.Tool{Name: "write"}, h)
					mcp.AddTool(s, &mcp.Tool{Name: "read"}, h)
					s.AddReceivingMiddleware(gosdk.Middleware(opt))
				}
				cs := connect(t, s)
				for _, c := range tc.calls {
					if c == "wait" {
						o.wait(time.Minute)
						continue
					}
					tool, args, _ := strings.Cut(c, " ")
					if answered := callTool(t, cs, tool, args); answered != (args != goodWrite) {
						t.Fatalf("%s: answered %v", c, answered)
					}
				}
				if got := o.list(); !slices.Equal(got, tc.want) {
					t.Errorf("outcomes %q, want %q", got, tc.want)
				}
			})
		}
	}
}

// Concurrent sessions over Streamable HTTP (each with its Mcp-Session-Id):
// each settles its own answers, never another's. go-sdk says nothing when
// a session ends: the answers left are abandoned at the bound.
func TestOutcomesConcurrentSessions(t *testing.T) {
	var o outcomes
	s := writeServer(o.option())
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil))
	defer hs.Close()
	const sessions = 6
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
			if err != nil {
				t.Error(err)
				return
			}
			defer cs.Close()
			callTool(t, cs, "write", noContent)
			if i%2 == 0 {
				callTool(t, cs, "write", goodWrite)
			}
		})
	}
	wg.Wait()
	if got := o.list(); !slices.Equal(got, slices.Repeat([]string{"write repaired 1"}, sessions/2)) {
		t.Errorf("outcomes %q", got)
	}
	o.wait(time.Minute)
	cs := connect(t, s)
	callTool(t, cs, "read", goodWrite) // any call finds the answers past the bound
	if got := o.list(); !slices.Equal(got, append(slices.Repeat([]string{"write repaired 1"}, sessions/2), slices.Repeat([]string{"write abandoned 1"}, sessions/2)...)) {
		t.Errorf("outcomes %q", got)
	}
}

// A valid call costs nothing more with WithOutcomes: no allocation beyond
// the handler's, nothing pending in its session.
func TestOutcomesValidCallAllocs(t *testing.T) {
	var o outcomes
	_, with, err := gosdk.Handler(&mcp.Tool{Name: "write"}, func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	}, o.option())
	if err != nil {
		t.Fatal(err)
	}
	_, without, err := gosdk.Handler(&mcp.Tool{Name: "write"}, func(context.Context, *mcp.CallToolRequest, Write) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{}, nil, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Name: "write", Arguments: json.RawMessage(goodWrite)}}
	a := testing.AllocsPerRun(100, func() { with(context.Background(), req) })
	b := testing.AllocsPerRun(100, func() { without(context.Background(), req) })
	if a != b {
		t.Errorf("a valid call allocates %v times with WithOutcomes, %v without", a, b)
	}
}

// Over stateless HTTP no session ties a request to the next: nothing is
// followed (in memory or over stdio, the connection is the session, in
// every revision: see TestOutcomes).
func TestOutcomesStatelessHTTP(t *testing.T) {
	var o outcomes
	s := writeServer(o.option())
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true}))
	defer hs.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: hs.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callTool(t, cs, "write", noContent)
	callTool(t, cs, "write", goodWrite)
	o.wait(time.Hour)
	callTool(t, cs, "write", goodWrite)
	if got := o.list(); got != nil {
		t.Errorf("outcomes %q over stateless HTTP", got)
	}
}

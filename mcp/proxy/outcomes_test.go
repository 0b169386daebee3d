package proxy_test

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// outcomeLog is what a test sees of the outcomes: the call log's lines,
// with their times, ids and durations made stable (ids become #1, #2… in
// the order they first appear), and WithOutcomes' reports.
type outcomeLog struct {
	mu       sync.Mutex
	log      bytes.Buffer
	outcomes []string
	// reported gets each outcome's tool once it is in the log: a test
	// waits there for a settlement made on the proxy's goroutines.
	reported chan string
}

func (l *outcomeLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.log.Write(p)
}

func (l *outcomeLog) report(o selfheal.Outcome) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.outcomes = append(l.outcomes, fmt.Sprintf("%s %s %d", o.Tool, o.Outcome, o.Attempt))
	if l.reported != nil {
		l.reported <- o.Tool
	}
}

func (l *outcomeLog) options() []proxy.Option {
	return []proxy.Option{proxy.WithCallLog(l), proxy.WithOutcomes(l.report)}
}

var (
	timeRE    = regexp.MustCompile(`"time":"[^"]*",`)
	idRE      = regexp.MustCompile(`"[0-9a-f]{8}-[0-9]+"`)
	afterRE   = regexp.MustCompile(`,"after_ms":[0-9]+`)
	tallyLine = regexp.MustCompile(`^\{"calls":`)
)

// lines returns the log's lines made stable, tallies left out.
func (l *outcomeLog) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	ids := map[string]string{}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(l.log.String(), "\n"), "\n") {
		line = timeRE.ReplaceAllString(line, "")
		line = afterRE.ReplaceAllString(line, "")
		line = idRE.ReplaceAllStringFunc(line, func(id string) string {
			if ids[id] == "" {
				ids[id] = fmt.Sprintf(`"#%d"`, len(ids)+1)
			}
			return ids[id]
		})
		if line != "" && !tallyLine.MatchString(line) {
			out = append(out, line)
		}
	}
	return out
}

// tallies sums the calls of the log's tallies, by tool.
func (l *outcomeLog) tallies() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, line := range strings.Split(l.log.String(), "\n") {
		if i := strings.Index(line, `"calls":`); i >= 0 {
			b.WriteString(line[i:])
		}
	}
	return b.String()
}

func check(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

const (
	good    = `{"path":"/a","content":"x"}`
	noBody  = `{"path":"/a"}`                // content missing
	badPath = `{"path":1,"content":"x"}`     // path of the wrong type
	typo    = `{"path":"/a","contents":"x"}` // a near miss: answered before forwarding
)

// A client session through the proxy, default mode (the server decides,
// the proxy explains its rejections) and strict: every way an answer
// settles, with the log's lines and the outcomes exact.
func TestOutcomes(t *testing.T) {
	answer := func(id, paths, codes string) string {
		return `{"id":"#` + id + `","tool":"write_file","codes":[` + codes + `],"paths":[` + paths + `],"answer":"validation_error"}`
	}
	settle := func(id, outcome string, attempt int) string {
		return fmt.Sprintf(`{"of":"#%s","tool":"write_file","outcome":"%s","attempt":%d}`, id, outcome, attempt)
	}
	for _, tc := range []struct {
		name     string
		strict   bool
		calls    []string // arguments of write_file, in order; "" for edit_file's good call
		log      []string
		outcomes []string
	}{{
		name:     "bad then good: repaired in one retry",
		calls:    []string{noBody, good},
		log:      []string{answer("1", `"content"`, `"invalid_type"`), settle("1", "repaired", 1)},
		outcomes: []string{"write_file repaired 1"},
	}, {
		name:  "bad then bad on the same field, then good: repaired in two",
		calls: []string{noBody, noBody, good},
		log: []string{answer("1", `"content"`, `"invalid_type"`), settle("1", "failed_same", 1),
			answer("2", `"content"`, `"invalid_type"`), settle("2", "repaired", 2)},
		outcomes: []string{"write_file failed_same 1", "write_file repaired 2"},
	}, {
		name:   "bad then bad on another field, in strict mode",
		strict: true,
		calls:  []string{noBody, badPath},
		log: []string{answer("1", `"content"`, `"invalid_type"`), settle("1", "failed_other", 1),
			answer("2", `"path"`, `"invalid_type"`), settle("2", "abandoned", 2)},
		outcomes: []string{"write_file failed_other 1", "write_file abandoned 2"},
	}, {
		name:     "a near miss answered before forwarding, then good",
		calls:    []string{typo, good},
		log:      []string{answer("1", `"content"`, `"unrecognized_keys"`), settle("1", "repaired", 1)},
		outcomes: []string{"write_file repaired 1"},
	}, {
		name:     "bad then session end: abandoned",
		calls:    []string{noBody},
		log:      []string{answer("1", `"content"`, `"invalid_type"`), settle("1", "abandoned", 1)},
		outcomes: []string{"write_file abandoned 1"},
	}, {
		name:     "interleaved tools: another tool's call settles nothing",
		calls:    []string{noBody, "", good},
		log:      []string{answer("1", `"content"`, `"invalid_type"`), settle("1", "repaired", 1)},
		outcomes: []string{"write_file repaired 1"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			var l outcomeLog
			r := listed(t, append(l.options(), proxy.WithStrict(tc.strict))...)
			for i, args := range tc.calls {
				id := fmt.Sprint(i + 2)
				switch {
				case args == "":
					line := call(id, "edit_file", `{"path":"/a","edits":[]}`)
					r.passes(line)
					r.returns(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]}}` + "\n")
				case args == good:
					r.passes(call(id, "write_file", args))
					r.returns(`{"jsonrpc":"2.0","id":` + id + `,"result":{"content":[]}}` + "\n")
				default:
					r.answered(call(id, "write_file", args))
				}
			}
			r.finish()
			check(t, "log", l.lines(), tc.log)
			check(t, "outcomes", l.outcomes, tc.outcomes)
		})
	}
}

// The server accepts a call its schema calls bad (it is more lenient):
// the call worked, so the answer before it is repaired, and the log says
// the server and the schema disagree.
func TestOutcomeServerAccepts(t *testing.T) {
	var l outcomeLog
	r := listed(t, l.options()...)
	r.answered(call("2", "write_file", noBody))
	r.passes(call("3", "write_file", badPath))
	r.returns(`{"jsonrpc":"2.0","id":3,"result":{"content":[]}}` + "\n")
	r.finish()
	check(t, "log", l.lines(), []string{
		`{"id":"#1","tool":"write_file","codes":["invalid_type"],"paths":["content"],"answer":"validation_error"}`,
		`{"tool":"write_file","codes":["invalid_type"],"paths":["path"],"answer":"accepted","disagreed":true}`,
		`{"of":"#1","tool":"write_file","outcome":"repaired","attempt":1}`,
	})
	if got := l.tallies(); got != `"calls":{"write_file":2}}` {
		t.Errorf("tallies %s", got)
	}
}

// Bad then silence: the answer is abandoned at the bound, found by the
// next call of any tool; the call of its tool after that settles nothing.
func TestOutcomeAbandonedAtTheBound(t *testing.T) {
	l := outcomeLog{reported: make(chan string, 10)}
	p, err := proxy.New(append(l.options(), proxy.WithListWait(time.Hour))...)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	now := time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	proxy.SetRepairClock(p, func() time.Time { mu.Lock(); defer mu.Unlock(); return now }, time.Minute)
	r := serveRig(t, p)
	r.list("1", "", toolsResult(toolJSON("write_file", writeSchema), toolJSON("edit_file", editSchema)))
	r.answered(call("2", "write_file", noBody))
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	r.passes(call("3", "edit_file", `{"path":"/a","edits":[]}`))
	select { // the settlement follows the forwarding
	case <-l.reported:
	case <-time.After(wait):
		t.Fatal("no outcome reported")
	}
	check(t, "log at the bound", l.lines(), []string{
		`{"id":"#1","tool":"write_file","codes":["invalid_type"],"paths":["content"],"answer":"validation_error"}`,
		`{"of":"#1","tool":"write_file","outcome":"abandoned","attempt":1}`,
	})
	r.passes(call("4", "write_file", good))
	r.finish()
	check(t, "outcomes", l.outcomes, []string{"write_file abandoned 1"})
}

// Concurrent sessions of one proxy: each settles its own answers, never
// another's; the tallies count every call.
func TestOutcomeConcurrentSessions(t *testing.T) {
	var l outcomeLog
	p, err := proxy.New(append(l.options(), proxy.WithListWait(time.Hour))...)
	if err != nil {
		t.Fatal(err)
	}
	const sessions = 6
	var wg sync.WaitGroup
	for i := range sessions {
		wg.Go(func() {
			r := serveRig(t, p)
			r.list("1", "", toolsResult(toolJSON("write_file", writeSchema)))
			r.answered(call("2", "write_file", noBody))
			if i%2 == 0 { // even sessions repair, odd ones go away
				r.passes(call("3", "write_file", good))
			}
			r.finish()
		})
	}
	wg.Wait()
	slices.Sort(l.outcomes)
	check(t, "outcomes", l.outcomes, []string{
		"write_file abandoned 1", "write_file abandoned 1", "write_file abandoned 1",
		"write_file repaired 1", "write_file repaired 1", "write_file repaired 1",
	})
	var calls int
	for _, line := range strings.Split(l.log.String(), "\n") {
		var n int
		if _, err := fmt.Sscanf(line[max(0, strings.Index(line, `"calls":`)):], `"calls":{"write_file":%d}}`, &n); err == nil {
			calls += n
		}
	}
	if calls != 9 {
		t.Errorf("tallied %d calls, want 9\n%s", calls, l.log.String())
	}
}

// Over HTTP, through go-sdk's client and server: each Mcp-Session-Id is a
// session. One repairs its call; the other ends (DELETE) with its answer
// unsettled: abandoned.
func TestOutcomeHTTPSessions(t *testing.T) {
	l := outcomeLog{reported: make(chan string, 10)}
	u := newUpstream(t, nil)
	fr := front(t, u, l.options()...)
	a := connect(t, fr.URL+"/mcp", nil, nil)
	b := connect(t, fr.URL+"/mcp", nil, nil)
	bad := map[string]any{"path": "a.txt", "content": 7}
	if res := callTool(t, a, "write_file", bad); !res.IsError {
		t.Fatal("a's bad call not answered")
	}
	if res := callTool(t, b, "write_file", bad); !res.IsError {
		t.Fatal("b's bad call not answered")
	}
	callTool(t, a, "write_file", map[string]any{"path": "a.txt", "content": "hi"})
	select {
	case <-l.reported:
	case <-time.After(wait):
		t.Fatal("a's answer not settled")
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-l.reported:
	case <-time.After(wait):
		t.Fatal("b's answer not settled at the session's end")
	}
	check(t, "outcomes", l.outcomes, []string{"write_file repaired 1", "write_file abandoned 1"})
	check(t, "log", l.lines(), []string{
		`{"id":"#1","tool":"write_file","codes":["invalid_type"],"paths":["content"],"answer":"validation_error"}`,
		`{"id":"#2","tool":"write_file","codes":["invalid_type"],"paths":["content"],"answer":"validation_error"}`,
		`{"of":"#1","tool":"write_file","outcome":"repaired","attempt":1}`,
		`{"of":"#2","tool":"write_file","outcome":"abandoned","attempt":1}`,
	})
}

package proxy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
)

// hangBound is how long the test waits for a compilation that should not
// wait at all before calling it blocked. It is not a timing assertion: a
// compilation stuck behind the held one would wait until the test lets
// that one go, which it does only afterwards.
const hangBound = 10 * time.Second

// One session compiling a slow schema holds up no session that needs
// another: the cache's lock is not held while compiling. Sessions that
// need the same schema wait for its one compilation.
func TestSchemaCompiledOutsideTheLock(t *testing.T) {
	var log syncLog
	p, err := New(WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	slow := json.RawMessage(`{"type": "object", "title": "slow", "properties": {"a": {"type": "string"}}}`)
	fast := json.RawMessage(`{"type": "object", "properties": {"b": {"type": "integer"}}}`)
	entered, release := make(chan struct{}), make(chan struct{})
	var compiled sync.Map // schema → *atomic.Int32, compilations
	p.schemas.compileFn = func(data []byte, opts ...jsonschemav6.Option) (*jsonschemav6.Schema, error) {
		n, _ := compiled.LoadOrStore(string(data), new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
		if bytes.Equal(data, slow) {
			close(entered)
			<-release
		}
		return jsonschemav6.Compile(data, opts...)
	}

	// Two sessions need the slow schema; the first compiles it and is
	// held there.
	slowDone := make(chan *jsonschemav6.Schema, 2)
	go func() { slowDone <- p.schemas.compile(p, "slow", slow) }()
	<-entered
	go func() { slowDone <- p.schemas.compile(p, "slow", slow) }()

	fastDone := make(chan *jsonschemav6.Schema, 1)
	go func() { fastDone <- p.schemas.compile(p, "fast", fast) }()
	select {
	case sch := <-fastDone:
		if sch == nil {
			t.Fatal("the fast schema did not compile")
		}
	case <-time.After(hangBound):
		t.Fatal("the fast schema waited for the slow one's compilation")
	}
	select {
	case <-slowDone:
		t.Fatal("a session needing the slow schema returned before its compilation ended")
	default:
	}

	close(release)
	a, b := <-slowDone, <-slowDone
	if a == nil || a != b {
		t.Fatalf("the slow schema: %p and %p; want one compiled schema", a, b)
	}
	if n, _ := compiled.Load(string(slow)); n.(*atomic.Int32).Load() != 1 {
		t.Errorf("the slow schema compiled %d times, want 1", n.(*atomic.Int32).Load())
	}
	if log.String() != "" {
		t.Errorf("log: %s", log.String())
	}
}

// A schema that does not compile is kept as nil and logged once, however
// many sessions list it at once.
func TestSchemaNotCompiledLoggedOnce(t *testing.T) {
	var log syncLog
	p, err := New(WithLogger(slog.New(slog.NewTextHandler(&log, nil))))
	if err != nil {
		t.Fatal(err)
	}
	bad := json.RawMessage(`{"type": "object", "properties": {"a": {"minLength": "two"}}}`)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			if sch := p.schemas.compile(p, "bad", bad); sch != nil {
				t.Error("a schema that does not compile gave a schema")
			}
		})
	}
	wg.Wait()
	if n := strings.Count(log.String(), "its calls pass unchecked"); n != 1 {
		t.Errorf("logged %d times, want once:\n%s", n, log.String())
	}
}

// The cache holds at most maxSchemas schemas.
func TestSchemaCacheBounded(t *testing.T) {
	p, err := New(WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	p.schemas.compileFn = func([]byte, ...jsonschemav6.Option) (*jsonschemav6.Schema, error) {
		return nil, nil // compiling is not what is tested
	}
	for i := range maxSchemas + 10 {
		p.schemas.compile(p, "t", json.RawMessage(fmt.Sprintf(`{"title": "%d"}`, i)))
		if n := len(p.schemas.m); n > maxSchemas {
			t.Fatalf("the cache holds %d schemas, bound is %d", n, maxSchemas)
		}
	}
	if n := len(p.schemas.m); n != 10 {
		t.Errorf("after %d schemas the cache holds %d, want 10 (started afresh at %d)", maxSchemas+10, n, maxSchemas)
	}
}

// syncLog is a log written by concurrent compilations.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// What a call needs before it is judged, from what the listings said: no
// listing, a stale one, one whose ttlMs has passed (the tool in it or
// not), a fresh one; and how long a listing is kept for its ttlMs.
func TestFind(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	page := func(extra string) json.RawMessage {
		return json.RawMessage(`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]` + extra + `}`)
	}
	for _, tc := range []struct {
		name    string
		setup   func(ts *toolSet)
		tool    string
		found   bool
		want    need
		expires bool
	}{
		{"nothing listed", func(ts *toolSet) {}, "a", false, listFirst, false},
		{"a page outside a listing", func(ts *toolSet) { ts.learn(p, page(""), false) }, "a", false, listFirst, false},
		{"listed, 2025", func(ts *toolSet) { ts.learn(p, page(""), true) }, "a", true, ready, false},
		{"not in the listing", func(ts *toolSet) { ts.learn(p, page(""), true) }, "b", false, ready, false},
		{"stale", func(ts *toolSet) { ts.learn(p, page(""), true); ts.markStale() }, "a", false, listFirst, false},
		{"ttlMs fresh", func(ts *toolSet) { ts.learn(p, page(`,"ttlMs":60000`), true) }, "a", true, ready, true},
		{"ttlMs passed", func(ts *toolSet) {
			ts.learn(p, page(`,"ttlMs":0`), true)
			ts.expires = time.Now().Add(-time.Millisecond)
		}, "a", true, revalidate, true},
		{"ttlMs passed, not listed", func(ts *toolSet) {
			ts.learn(p, page(`,"ttlMs":0`), true)
			ts.expires = time.Now().Add(-time.Millisecond)
		}, "b", false, listFirst, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ts toolSet
			tc.setup(&ts)
			got, need := ts.find(tc.tool)
			if (got != nil) != tc.found || need != tc.want || ts.expires.IsZero() == tc.expires {
				t.Errorf("find(%q) = %v, %d (expires %v); want found %v, %d, expires %v", tc.tool, got, need, ts.expires, tc.found, tc.want, tc.expires)
			}
		})
	}
	ms := func(f float64) *float64 { return &f }
	for _, tc := range []struct {
		ttl  *float64
		want time.Duration // 0: never
	}{
		{nil, 0},
		{ms(0), minTTL},
		{ms(-5), minTTL},
		{ms(999), minTTL},
		{ms(60000), time.Minute},
		{ms(1e300), 24 * time.Hour},
	} {
		before := time.Now()
		got := expiry(tc.ttl)
		if tc.want == 0 {
			if !got.IsZero() {
				t.Errorf("expiry(nil) = %v, want never", got)
			}
			continue
		}
		if d := got.Sub(before); d < tc.want || d > tc.want+time.Minute {
			t.Errorf("expiry(%v) is %v from now, want %v", *tc.ttl, d, tc.want)
		}
	}
}

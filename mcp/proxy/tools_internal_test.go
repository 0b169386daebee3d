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

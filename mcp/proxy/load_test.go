package proxy_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/internal/testkit/race"
)

// loadCalls is how many calls a load run makes in all, over loadWorkers
// sessions calling at the same time: the long run (20,000) when
// SELFHEAL_LOAD=1 asks for it (CI sets it) and not under the race
// detector, which slows every call tenfold; else 2,000, so that the
// default go test of the package stays within a minute on a shared
// machine.
func loadCalls() int {
	if race.Enabled || testing.Short() || os.Getenv("SELFHEAL_LOAD") != "1" {
		return 2000
	}
	return 20000
}

const loadWorkers = 64

// loadRun is what a load run saw.
type loadRun struct {
	latencies []time.Duration // of the valid calls
	failed    atomic.Int64    // calls that got an error instead of a result
	wrong     []string        // answers that were not the call's own
	mu        sync.Mutex
}

// load makes calls tools/call requests through endpoint from loadWorkers
// sessions at once. Every tenth call of a worker is bad when bad is set.
// Each valid call writes a path of its own, and its result must name it:
// a response lost, duplicated or given to another call shows. Each call
// has timeout; load fails the test if the run is not over long after.
func load(t *testing.T, endpoint string, calls int, bad bool, timeout time.Duration, after func(n int64)) *loadRun {
	t.Helper()
	run := &loadRun{}
	sessions := make([]*mcp.ClientSession, loadWorkers)
	for i := range sessions {
		sessions[i] = connect(t, endpoint, &mcp.ClientOptions{}, nil)
		listTools(t, sessions[i])
	}
	var done atomic.Int64
	var wg sync.WaitGroup
	for w, cs := range sessions {
		wg.Go(func() {
			var lat []time.Duration
			for c := range calls / loadWorkers {
				path := fmt.Sprintf("w%d-c%d", w, c)
				args := map[string]any{"path": path, "content": "x"}
				isBad := bad && c%10 == 9
				if isBad {
					args["content"] = 7
				}
				ctx, cancel := context.WithTimeout(context.Background(), timeout)
				start := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_file", Arguments: args})
				d := time.Since(start)
				cancel()
				if after != nil {
					after(done.Add(1))
				}
				if err != nil {
					run.failed.Add(1)
					continue
				}
				want := "wrote " + path
				if isBad {
					want = `<validation_error action="write_file">`
				} else {
					lat = append(lat, d)
				}
				if got := text(res); !strings.HasPrefix(got, want) || (!isBad && got != want) {
					run.mu.Lock()
					run.wrong = append(run.wrong, fmt.Sprintf("%s: %.80q", path, got))
					run.mu.Unlock()
				}
			}
			run.mu.Lock()
			run.latencies = append(run.latencies, lat...)
			run.mu.Unlock()
		})
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	select {
	case <-finished:
	case <-time.After(timeout + 5*time.Minute): // a hang check, not a timing
		t.Fatal("the load run did not end: a call hangs")
	}
	for _, cs := range sessions {
		cs.Close() // a session left open would count as a leak in TestLoad
	}
	slices.Sort(run.latencies)
	return run
}

// percentile returns the p-th percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(float64(len(sorted))*p))]
}

func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestLoad runs the same calls directly and through the HTTP proxy: no
// response is lost, duplicated or misdelivered, every bad call is answered
// by the proxy, and the heap does not grow from one run to the next. The
// latencies are logged (go test -v -run TestLoad), never asserted.
func TestLoad(t *testing.T) {
	calls := loadCalls()
	u := newUpstream(t, nil)
	fr := front(t, u)

	direct := load(t, u.srv.URL+"/mcp", calls, false, wait, nil)
	first := load(t, fr.URL+"/mcp", calls/2, true, wait, nil)
	heap1 := heapInUse()
	second := load(t, fr.URL+"/mcp", calls/2, true, wait, nil)
	heap2 := heapInUse()

	for name, run := range map[string]*loadRun{"direct": direct, "proxy 1": first, "proxy 2": second} {
		if n := run.failed.Load(); n != 0 {
			t.Errorf("%s: %d calls failed", name, n)
		}
		if len(run.wrong) > 0 {
			t.Errorf("%s: %d answers were not the call's own, such as %s", name, len(run.wrong), run.wrong[0])
		}
	}
	bad := int64(2 * (calls / 2 / loadWorkers / 10 * loadWorkers))
	if got := int64(calls/loadWorkers*loadWorkers) + int64(2*(calls/2/loadWorkers*loadWorkers)) - bad; u.calls.Load() != got {
		t.Errorf("the server ran %d calls, want %d (every valid call once, no bad one)", u.calls.Load(), got)
	}
	// Memory is flat: a second run of as many calls leaves the heap about
	// where the first left it (the bound is generous: a leak of one object
	// per call shows, a garbage collector's mood does not).
	if heap2 > heap1+16<<20 {
		t.Errorf("the heap grew from %d to %d bytes between two runs of %d calls", heap1, heap2, calls/2)
	}
	via := slices.Concat(first.latencies, second.latencies)
	slices.Sort(via)
	t.Logf("%d calls, %d at a time: direct p50 %v p99 %v; through the proxy p50 %v p99 %v (added p50 %v, p99 %v); heap %d → %d KiB",
		calls, loadWorkers,
		percentile(direct.latencies, 0.5), percentile(direct.latencies, 0.99),
		percentile(via, 0.5), percentile(via, 0.99),
		percentile(via, 0.5)-percentile(direct.latencies, 0.5), percentile(via, 0.99)-percentile(direct.latencies, 0.99),
		heap1>>10, heap2>>10)
}

// TestLoadUpstreamKilled kills the server in the middle of a load run:
// every call gets an answer (a result, or an error once the server is
// gone), and none hangs past its timeout.
func TestLoadUpstreamKilled(t *testing.T) {
	calls := loadCalls() / 4
	u := newUpstream(t, nil)
	fr := front(t, u)
	var once sync.Once
	kill := func(n int64) {
		if n == int64(calls/3) {
			once.Do(func() {
				u.srv.CloseClientConnections()
				u.srv.Listener.Close()
			})
		}
	}
	const timeout = 5 * time.Second
	start := time.Now()
	run := load(t, fr.URL+"/mcp", calls, false, timeout, kill)
	if len(run.wrong) > 0 {
		t.Errorf("%d answers were not the call's own, such as %s", len(run.wrong), run.wrong[0])
	}
	answered := int64(len(run.latencies)) + run.failed.Load()
	if want := int64(calls / loadWorkers * loadWorkers); answered != want {
		t.Errorf("%d calls answered, want %d", answered, want)
	}
	if run.failed.Load() == 0 {
		t.Errorf("no call failed although the server was killed")
	}
	t.Logf("%d calls, server killed after %d: %d results, %d errors, in %v",
		calls, calls/3, len(run.latencies), run.failed.Load(), time.Since(start))
}

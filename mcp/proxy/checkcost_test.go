package proxy_test

import (
	"encoding/json"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// rejecting is an MCP server whose one tool, store, takes an array of
// strings in names; it reads a call's body to its end and refuses it with a
// JSON-RPC error, as a server refusing numbers would.
func rejecting(t *testing.T, calls *atomic.Int64) *url.URL {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(io.LimitReader(r.Body, 512))
		_, _ = io.Copy(io.Discard, r.Body)
		var id json.RawMessage = []byte("1")
		if i := strings.Index(string(data), `"id":`); i >= 0 {
			id = json.RawMessage(strings.SplitN(string(data[i+5:]), ",", 2)[0])
		}
		msg := `{"jsonrpc":"2.0","id":` + string(id) + `,"error":{"code":-32602,"message":"Invalid arguments"}}`
		if strings.Contains(string(data), `"tools/call"`) {
			calls.Add(1)
		}
		if strings.Contains(string(data), `"tools/list"`) {
			msg = `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[{"name":"store","inputSchema":{"type":"object","properties":{"names":{"type":"array","items":{"type":"string"}}}}}]}}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, msg)
	}))
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL + "/mcp")
	return u
}

// peakHeap runs f and returns how far the heap grew while it ran, at its
// peak (sampled every millisecond), over what it held before.
func peakHeap(f func()) int64 {
	base := retained()
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapAlloc)
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return int64(peak) - base
}

// badCall is a tools/call of store with n numbers in names, where strings
// are expected: n issues, every one of n values checked.
func badCall(id, n int) string {
	return `{"jsonrpc":"2.0","id":` + itoa(id) + `,"method":"tools/call","params":{"name":"store","arguments":{"names":[` +
		strings.Repeat("1,", n-1) + `1]}}}`
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestCheckCost (issue 39, fault 5): what checking costs is bounded by the
// bytes admitted, not by the values they hold. On main one call of 2
// million numbers (4 MiB) took the heap ~150 times its bytes (each value
// decoded, and walked by the schema with a scope and an error each);
// arguments of more than 100,000 values are now checked at their top level
// only, and the others take what their check costs from the body budget.
func TestCheckCost(t *testing.T) {
	p, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)), proxy.WithBodyMemory(48<<20))
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := httptest.NewServer(p.HTTPHandler(rejecting(t, &calls)))
	defer srv.Close()
	send := func(body string) {
		status, _, resp := post(t, srv.URL+"/mcp", "application/json", body)
		if status != 200 || !strings.Contains(resp, `"error"`) && !strings.Contains(resp, `"isError":true`) {
			t.Errorf("HTTP %d %.300s", status, resp)
		}
	}
	send(badCall(0, 10)) // the listing, and the proxy's own first allocations

	// Past 100,000 values the top level is still checked: a near miss of
	// names is answered, and never reaches the server.
	before := calls.Load()
	_, _, resp := post(t, srv.URL+"/mcp", "application/json", strings.Replace(badCall(1, 200_000), `"names"`, `"nmaes"`, 1))
	if !strings.Contains(resp, `"isError":true`) || !strings.Contains(resp, "nmaes") || calls.Load() != before {
		t.Errorf("a near miss past the bound: %d calls reached the server; %.300s", calls.Load()-before, resp)
	}

	for _, tc := range []struct {
		name      string
		calls     int
		values    int
		most      float64 // peak heap ÷ bytes admitted
		mostBytes int64   // or a bound in bytes, 0 for none
	}{
		{"one call of 2 million values", 1, 2 << 20, 6, 0},
		{"10 calls of 500,000 values at once", 10, 500_000, 6, 0},
		// Under the bound each is checked whole (40 MB a call); the budget
		// of 48 MiB lets one at a time.
		{"12 calls of 99,000 values at once", 12, 99_000, 0, 80 << 20},
	} {
		bodies := make([]string, tc.calls)
		admitted := 0
		for i := range bodies {
			bodies[i] = badCall(i+1, tc.values)
			admitted += len(bodies[i])
		}
		peak := peakHeap(func() {
			var wg sync.WaitGroup
			for _, b := range bodies {
				wg.Add(1)
				go func() { defer wg.Done(); send(b) }()
			}
			wg.Wait()
		})
		ratio := float64(peak) / float64(admitted)
		t.Logf("%s: %d bytes admitted, heap peak +%d bytes: %.1f× the bytes", tc.name, admitted, peak, ratio)
		if tc.most > 0 && ratio > tc.most {
			t.Errorf("%s: the heap grew %.1f× the bytes admitted, want at most %v×", tc.name, ratio, tc.most)
		}
		if tc.mostBytes > 0 && peak > tc.mostBytes {
			t.Errorf("%s: the heap grew by %d bytes, want at most %d", tc.name, peak, tc.mostBytes)
		}
	}
}

// TestCheckCostFigures logs, with -figures, the figures: the heap
// at its peak for one call of a 15 MiB array argument, and for 100 calls
// at once of 5 MB each (one client: what its share of the default 128 MiB
// budget does not hold gets 503), over the bytes admitted.
func TestCheckCostFigures(t *testing.T) {
	if f := flag.Lookup("figures"); f == nil || f.Value.String() != "true" {
		t.Skip("a figure run: go test -run TestCheckCostFigures -figures")
	}
	p, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	srv := httptest.NewServer(p.HTTPHandler(rejecting(t, &calls)))
	defer srv.Close()
	post(t, srv.URL+"/mcp", "application/json", badCall(0, 10))
	for _, tc := range []struct {
		name          string
		calls, values int
	}{
		{"one call of 15 MiB", 1, 15 << 19},
		{"100 calls of 5 MB at once", 100, 5 << 19},
	} {
		var served, refused, failed, admitted atomic.Int64
		bodies := make([]string, tc.calls) // built before: the client's memory is not the proxy's
		for i := range bodies {
			bodies[i] = badCall(i+1, tc.values)
		}
		peak := peakHeap(func() {
			var wg sync.WaitGroup
			for _, b := range bodies {
				wg.Add(1)
				go func() {
					defer wg.Done()
					resp, err := http.Post(srv.URL+"/mcp", "application/json", strings.NewReader(b))
					if err != nil { // refused while sending: the proxy closed the connection
						failed.Add(1)
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == 200 {
						served.Add(1)
						admitted.Add(int64(len(b)))
					} else {
						refused.Add(1)
					}
				}()
			}
			wg.Wait()
		})
		t.Logf("%s: %d served (%d bytes), %d refused 503, %d cut while sending; heap peak +%d MB: %.1f× the bytes admitted",
			tc.name, served.Load(), admitted.Load(), refused.Load(), failed.Load(), peak>>20, float64(peak)/float64(max(admitted.Load(), 1)))
	}
}

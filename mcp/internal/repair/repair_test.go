package repair_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/internal/repair"
)

// clock is a test's clock: it moves only when told.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// step is one event of a script: "answer S T f1,f2", "accept S T",
// "end S", "wait DURATION", "sweep", "close".
type step string

func run(t *testing.T, lim repair.Limits, script []step) []string {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)}
	var got []string
	ids := map[string]string{} // answer id -> "S T #n"
	n := 0
	tr := repair.New(func(o repair.Outcome) {
		got = append(got, fmt.Sprintf("%s %s %s attempt=%d after=%s", ids[o.Answer], o.Tool, o.Outcome, o.Attempt, o.Elapsed))
	}, lim, c.now)
	for _, s := range script {
		f := strings.Fields(string(s))
		if len(f) > 1 && f[1] == "-" {
			f[1] = "" // no session
		}
		switch f[0] {
		case "answer":
			var fields []string
			if len(f) > 3 {
				fields = strings.Split(f[3], ",")
			}
			n++
			ids[tr.Answered(f[1], f[2], fields)] = fmt.Sprintf("#%d", n)
		case "accept":
			tr.Accepted(f[1], f[2])
		case "end":
			tr.End(f[1])
		case "wait":
			d, err := time.ParseDuration(f[1])
			if err != nil {
				t.Fatal(err)
			}
			c.t = c.t.Add(d)
		case "sweep":
			tr.Sweep()
		case "close":
			tr.Close()
		default:
			t.Fatalf("bad step %q", s)
		}
	}
	if len(got) == 0 {
		got = nil
	}
	return got
}

func TestTracker(t *testing.T) {
	small := repair.Limits{Within: time.Minute, PerSession: 2, Total: 3}
	for _, tc := range []struct {
		name   string
		lim    repair.Limits
		script []step
		want   []string
	}{{
		name:   "repaired in one retry",
		script: []step{"answer s1 write a", "wait 2s", "accept s1 write"},
		want:   []string{"#1 write repaired attempt=1 after=2s"},
	}, {
		name:   "a valid call with nothing pending settles nothing",
		script: []step{"accept s1 write", "accept s1 read"},
	}, {
		name:   "failed again on the same fields, in any order, then repaired",
		script: []step{"answer s1 write a,b", "wait 1s", "answer s1 write b,a", "wait 3s", "accept s1 write"},
		want:   []string{"#1 write failed_same attempt=1 after=1s", "#2 write repaired attempt=2 after=3s"},
	}, {
		name:   "failed again on other fields",
		script: []step{"answer s1 write a", "answer s1 write a,b", "answer s1 write c"},
		want:   []string{"#1 write failed_other attempt=1 after=0s", "#2 write failed_other attempt=2 after=0s"},
	}, {
		name:   "silence: abandoned at the bound, settled by the next event of any session",
		lim:    small,
		script: []step{"answer s1 write a", "wait 59s", "accept s2 read", "wait 1s", "accept s2 read", "accept s1 write"},
		want:   []string{"#1 write abandoned attempt=1 after=1m0s"},
	}, {
		name:   "silence: abandoned by Sweep",
		lim:    small,
		script: []step{"answer s1 write a", "wait 2m", "sweep", "sweep"},
		want:   []string{"#1 write abandoned attempt=1 after=2m0s"},
	}, {
		name:   "session end abandons its answers only",
		script: []step{"answer s1 write a", "answer s1 read b", "answer s2 write a", "end s1", "end s1", "accept s2 write"},
		want:   []string{"#1 write abandoned attempt=1 after=0s", "#2 read abandoned attempt=1 after=0s", "#3 write repaired attempt=1 after=0s"},
	}, {
		name:   "interleaved tools settle apart",
		script: []step{"answer s1 write a", "answer s1 read b", "accept s1 read", "answer s1 write a", "accept s1 write"},
		want:   []string{"#2 read repaired attempt=1 after=0s", "#1 write failed_same attempt=1 after=0s", "#3 write repaired attempt=2 after=0s"},
	}, {
		name:   "sessions apart: one's call does not settle another's answer",
		script: []step{"answer s1 write a", "accept s2 write", "close"},
		want:   []string{"#1 write abandoned attempt=1 after=0s"},
	}, {
		name:   "per session bound: the session's oldest makes room",
		lim:    small,
		script: []step{"answer s1 a x", "answer s2 a x", "answer s1 b x", "answer s1 c x"},
		want:   []string{"#1 a abandoned attempt=1 after=0s"},
	}, {
		name:   "total bound: the oldest of all makes room",
		lim:    small,
		script: []step{"answer s1 a x", "answer s2 a x", "answer s3 a x", "answer s4 a x", "close"},
		want: []string{"#1 a abandoned attempt=1 after=0s",
			"#2 a abandoned attempt=1 after=0s", "#3 a abandoned attempt=1 after=0s", "#4 a abandoned attempt=1 after=0s"},
	}, {
		name:   "no session: not tracked",
		script: []step{"answer - write a", "close"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			got := run(t, tc.lim, tc.script)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestAnswerIDsUnique(t *testing.T) {
	a := repair.New(nil, repair.Limits{}, nil)
	b := repair.New(nil, repair.Limits{}, nil)
	x, y, z := a.Answered("s", "t", nil), a.Answered("s", "t", nil), b.Answered("s", "t", nil)
	if x == y || x == z || y == z {
		t.Errorf("ids %q %q %q are not unique", x, y, z)
	}
}

// TestMemory10000Sessions: a client that never retries, 10,000 sessions
// each leaving one answer unsettled. The figure is logged; the bound is
// that of the limits: it holds whatever the client does.
func TestMemory10000Sessions(t *testing.T) {
	const sessions = 10_000
	names := make([]string, sessions)
	for i := range names {
		names[i] = fmt.Sprintf("session-%032d", i) // the length of a UUID-like Mcp-Session-Id
	}
	tr := repair.New(nil, repair.Limits{}, nil)
	before := heap()
	for _, s := range names {
		tr.Answered(s, "write_file", []string{"content", "path"})
	}
	after := heap()
	per := float64(after-before) / sessions
	t.Logf("10,000 sessions with one answer unsettled: %d bytes (%.0f bytes a session), %d pending", after-before, per, tr.Pending())
	if tr.Pending() != sessions {
		t.Errorf("pending %d, want %d", tr.Pending(), sessions)
	}
	if per > 400 {
		t.Errorf("%.0f bytes a session: more than 400", per)
	}
	// Past Total, memory stays where it is.
	small := repair.New(nil, repair.Limits{Total: 1000}, nil)
	for _, s := range names {
		small.Answered(s, "write_file", nil)
	}
	if small.Pending() != 1000 {
		t.Errorf("pending %d past Total, want 1000", small.Pending())
	}
	runtime.KeepAlive(tr)
}

func heap() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// A valid call in a session with nothing pending costs no allocation.
func TestAcceptedAllocs(t *testing.T) {
	tr := repair.New(nil, repair.Limits{}, nil)
	if n := testing.AllocsPerRun(100, func() { tr.Accepted("s", "t") }); n != 0 {
		t.Errorf("Accepted with nothing pending: %v allocs", n)
	}
	tr.Answered("other", "t", nil)
	if n := testing.AllocsPerRun(100, func() { tr.Accepted("s", "t") }); n != 0 {
		t.Errorf("Accepted with another session's answer pending: %v allocs", n)
	}
}

package wiretest

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/selfheal/selfheal/mcp/internal/repair"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// Outcomes records what WithOutcomes reports in the integrations' tests,
// as "tool outcome attempt", on a clock the test moves: it reaches the
// bound of the answers without waiting for it.
type Outcomes struct {
	mu  sync.Mutex
	got []string
	now time.Time
}

// Option is WithOutcomes (gosdk's and mcpgo's Option is toolcall.Option)
// reporting to o, with o's clock and a bound of a minute.
func (o *Outcomes) Option() toolcall.Option {
	o.now = time.Date(2026, 1, 2, 15, 4, 5, 0, time.UTC)
	tr := repair.New(o.report, repair.Limits{Within: time.Minute}, o.clock)
	return func(c *toolcall.Config) { c.Outcomes, c.Repairs = o.report, tr }
}

func (o *Outcomes) report(r repair.Outcome) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.got = append(o.got, fmt.Sprintf("%s %s %d", r.Tool, r.Outcome, r.Attempt))
}

func (o *Outcomes) clock() time.Time {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.now
}

// Wait moves the clock by d.
func (o *Outcomes) Wait(d time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.now = o.now.Add(d)
}

// List returns the outcomes reported so far, in order.
func (o *Outcomes) List() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.Clone(o.got)
}

// OutcomeCase is a case of the integrations' TestOutcomes: calls, each
// "tool arguments" or "wait" (the clock moves past the bound), and the
// outcomes they settle.
type OutcomeCase struct {
	Name  string
	Calls []string
	Want  []string
}

// Arguments of the cases: a call of write or read (path and content
// required) that is valid, one without content, one whose path is not a
// string.
const (
	GoodWrite = `{"path":"/a","content":"x"}`
	NoContent = `{"path":"/a"}`
	BadPath   = `{"path":1,"content":"x"}`
)

// OutcomeCases are the cases both integrations run, with a real client
// session.
var OutcomeCases = []OutcomeCase{
	{"bad then good: repaired", []string{"write " + NoContent, "write " + GoodWrite}, []string{"write repaired 1"}},
	{"bad, bad on the same field, good", []string{"write " + NoContent, "write " + NoContent, "write " + GoodWrite},
		[]string{"write failed_same 1", "write repaired 2"}},
	{"bad, bad on another field", []string{"write " + NoContent, "write " + BadPath}, []string{"write failed_other 1"}},
	{"interleaved tools", []string{"write " + NoContent, "read " + NoContent, "read " + GoodWrite, "write " + GoodWrite},
		[]string{"read repaired 1", "write repaired 1"}},
	{"bad then silence: abandoned at the bound", []string{"write " + NoContent, "wait", "read " + GoodWrite, "write " + GoodWrite},
		[]string{"write abandoned 1"}},
}

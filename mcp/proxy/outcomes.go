package proxy

import (
	"time"

	"github.com/selfheal/selfheal"
)

// The outcomes of the answers (WithOutcomes) and the call log's tallies,
// both fed by call.report, which sees every call of a listed tool once.

// tallyEvery is how often at most the call log gets a tally, written by the
// first call after it and at a session's end.
const tallyEvery = time.Minute

// maxTallyTools bounds a tally's tools; later ones count under "other".
const maxTallyTools = 1000

// tally counts a call of tool for the call log's next tally.
func (p *Proxy) tally(tool string) {
	if p.cfg.callLog == nil {
		return
	}
	now := time.Now()
	p.callLogMu.Lock()
	if p.calls == nil {
		p.calls = map[string]int64{}
		p.talliedAt = now
	}
	if _, ok := p.calls[tool]; !ok && len(p.calls) >= maxTallyTools {
		tool = "other"
	}
	p.calls[tool]++
	due := now.Sub(p.talliedAt) >= tallyEvery
	p.callLogMu.Unlock()
	if due {
		p.flushTally()
	}
}

// flushTally writes the calls counted since the last tally to the call log.
func (p *Proxy) flushTally() {
	if p.cfg.callLog == nil {
		return
	}
	p.callLogMu.Lock()
	calls := p.calls
	p.calls = nil
	p.talliedAt = time.Now()
	p.callLogMu.Unlock()
	if len(calls) > 0 {
		p.logCall(callLogLine{Calls: calls})
	}
}

// settled is the tracker's report: the call log's second line of an
// answer, then WithOutcomes' function.
func (p *Proxy) settled(o selfheal.Outcome) {
	ms := o.Elapsed.Milliseconds()
	p.logCall(callLogLine{Of: o.Answer, Tool: o.Tool, Outcome: o.Outcome, Attempt: o.Attempt, AfterMS: &ms})
	if f := p.cfg.Outcomes; f != nil {
		f(o)
	}
}

// endSession settles the answers of the session of key as abandoned, and
// writes the calls' tally.
func (p *Proxy) endSession(key string) {
	if p.repairs == nil {
		return
	}
	p.repairs.End(key)
	p.flushTally()
}

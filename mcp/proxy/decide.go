package proxy

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// call is one tools/call of a listed tool, whatever carries it (a stdio
// line, an HTTP body, a batch member): its fate is decided here and nowhere
// else, and a transport only frames the bytes. It is answered now
// (answer(nil)), refused by a guard (refused), or forwarded (forwarded),
// where one with issues waits for the server's response, which settle
// explains or passes. Each call is reported once (report).
type call struct {
	p    *Proxy
	id   []byte // the request's id, as the client wrote it
	tool *tool
	// list are the issues the schema finds, nil for none.
	list issues.List
	// now: the proxy answers the call before forwarding it; else its issues
	// explain the server's rejection (settle).
	now bool
	// locale is the answer's language ("" for the engine's); stateless:
	// the call's results carry their resultType. Set by the transport.
	locale    string
	stateless bool
	start     time.Time
	// session is the call's session key for WithOutcomes ("" for none).
	session string
	// ownReason: the server refused the call for a reason of its own.
	ownReason bool
}

// decide checks the arguments of m, a tools/call of t. The schema predicts
// what the server accepts; it is not the truth, so only what the server
// would get wrong silently (near misses of declared keys, which it drops)
// is answered before forwarding, every issue with WithStrict. Arguments
// past the depth limit are the server's to judge (refused with WithStrict).
//
// Arguments of more than maxCheckedValues values are checked at their top
// level only. Checking costs checkCost bytes a value from the body-memory
// budget; when none is free within budgetWait, the top level only too.
func (p *Proxy) decide(ctx context.Context, t *tool, m *wire.Message, start time.Time) call {
	c := call{p: p, id: m.ID, tool: t, start: start}
	if t.schema == nil {
		return c
	}
	mc := m.Call
	if cost := int64(mc.Values) * checkCost; mc.Scanned && mc.Values <= maxCheckedValues && p.bodies != nil {
		// A cost past the whole budget could never be taken: no wait.
		if p.bodies.TryAcquire(cost) || cost <= p.cfg.bodyMemory && acquireWithin(ctx, p.bodies, cost, budgetWait) {
			defer p.bodies.Release(cost)
		} else {
			mc.Values = maxCheckedValues + 1 // no room to build them: the top level only
		}
	}
	list := arguments(t, mc, p.cfg.MaxDepth, p.cfg.strict)
	if list == nil || !m.Valid {
		return c
	}
	c.list = list
	c.now = p.cfg.strict || nearmiss.HasNearMiss(list)
	return c
}

// answer returns the validation_error (one line) for c.list, in c.locale
// and the call's revision; rej is the rejection it explains, nil before
// forwarding.
func (c *call) answer(rej *rejection) []byte {
	t := c.tool
	e := c.p.cfg.EngineFor(c.locale)
	v, sc := toolcall.Answer(e, t.name, c.list, t.contract)
	if rej != nil {
		// What the server said stays where the model reads it: it may have
		// failed for a reason the schema cannot see.
		v.ServerMessage = e.ServerMessage(rej.message)
		sc.ServerMessage = v.ServerMessage
	}
	res := callResult{
		Content:    []textContent{{Type: "text", Text: v.String()}},
		IsError:    true,
		ResultType: resultType(c.stateless),
	}
	if t.output {
		res.Meta = map[string]any{toolcall.MetaIssues: sc}
	} else {
		res.StructuredContent = &sc
	}
	line := responseLine(c.id, res)
	if c.p.cfg.callLog != nil || c.p.cfg.observer != nil || c.p.repairs != nil {
		codes, paths := toolcall.Summary(sc.Issues)
		c.report("validation_error", paths, Event{Answered: true, Explained: rej != nil, Code: string(envelope.ValidationErrorCode), Issues: codes})
	}
	return line
}

// refused returns the response to a call a guard or limiter refused.
func (c *call) refused(te *envelope.ToolError) []byte {
	line := responseLine(c.id, callResult{
		Content:    []textContent{{Type: "text", Text: te.String()}},
		IsError:    te.IsError(),
		ResultType: resultType(c.stateless),
	})
	c.report(string(te.Code), nil, Event{Answered: true, Code: string(te.Code)})
	return line
}

// forwarded notes that the call went to the server; one with issues is
// reported when its response comes.
func (c *call) forwarded() {
	if c.list == nil {
		c.report("", nil, Event{})
	}
}

// settle returns what the client receives for the server's response m to a
// call forwarded with issues: selfheal's answer in place of a rejection
// about the arguments, else nil (the response passes untouched, and a
// disagreement is logged once per tool). A rejection that is already a
// validation_error passes too: nesting envelopes says everything twice.
func (c *call) settle(m *wire.Message) []byte {
	rej, ok := rejected(m)
	switch {
	case !ok:
		c.p.disagree(c.tool.name, "the server accepted a call its schema calls bad; the server decides, and its result passed untouched")
	case strings.HasPrefix(strings.TrimSpace(rej.message), "<validation_error"):
		c.report("", nil, Event{})
		return nil
	case !aboutArguments(c.list, rej):
		c.ownReason = true
		c.p.disagree(c.tool.name, "the server refused a call for a reason its schema does not name (every issue the schema finds is one servers tolerate); its answer passed untouched")
	default:
		return c.answer(rej)
	}
	c.report("", nil, Event{Disagreed: true})
	return nil
}

// report is the one place a call is reported: the call log (answered, or
// accepted against its schema), WithOutcomes' settlement, the tally, and
// the observer.
func (c *call) report(answer string, paths []string, ev Event) {
	ev.Tool, ev.Duration = c.tool.name, time.Since(c.start)
	var id string
	if c.p.repairs != nil && answer == "validation_error" {
		id = c.p.repairs.Answered(c.session, c.tool.name, paths) // settles the one before
	}
	switch {
	case answer != "":
		c.p.logCall(callLogLine{ID: id, Tool: c.tool.name, Codes: ev.Issues, Paths: paths, Answer: answer})
	case ev.Disagreed && !c.ownReason && c.p.cfg.callLog != nil:
		_, shown := c.p.cfg.Engine.Result(c.tool.name, c.list)
		codes, paths := toolcall.Summary(shown)
		c.p.logCall(callLogLine{Tool: c.tool.name, Codes: codes, Paths: paths, Answer: "accepted", Disagreed: true})
	}
	if c.p.repairs != nil {
		if !ev.Answered && !c.ownReason && c.session != "" {
			// Forwarded valid, or accepted against its schema: the answer
			// before it, if any, repaired the call.
			c.p.repairs.Accepted(c.session, c.tool.name)
		}
		c.p.tally(c.tool.name)
	}
	if f := c.p.cfg.observer; f != nil {
		f(ev)
	}
}

// aboutArguments reports whether the server's rejection is about the
// arguments (DESIGN: whose failure it is): a -32602, a message naming a
// flagged field, or an issue the schema makes certain. Otherwise the server
// failed for its own reason, and a model must not be told to fix a field.
func aboutArguments(list issues.List, rej *rejection) bool {
	if rej.code == wire.CodeInvalidParams {
		return true
	}
	for i := range list {
		is := &list[i]
		if !tolerated(is) || namesField(rej.message, is) {
			return true
		}
	}
	return false
}

// tolerated reports whether servers commonly accept what the issue flags:
// an undeclared key, a loose format, a number sent as a string. A near miss
// is never tolerated.
func tolerated(is *issues.Issue) bool {
	switch is.Code {
	case issues.UnrecognizedKeys:
		return is.Check != issues.CheckNearMiss
	case issues.InvalidFormat:
		return true
	case issues.InvalidType:
		// A number as a coercing server reads it.
		s, ok := is.Input.(string)
		_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		return ok && !is.Absent && (is.Expected.Has(issues.TypeNumber) || is.Expected.Has(issues.TypeInteger)) && err == nil
	}
	return false
}

// namesField reports whether msg names the issue's field (the path's last
// key or an unrecognized key) as a word.
func namesField(msg string, is *issues.Issue) bool {
	names := is.Keys
	if n := len(is.Path); n > 0 {
		if k, ok := is.Path[n-1].(string); ok {
			names = append(names[:len(names):len(names)], k)
		}
	}
	for _, name := range names {
		for i := 0; name != "" && i <= len(msg)-len(name); {
			j := strings.Index(msg[i:], name)
			if j < 0 {
				break
			}
			j += i
			if !wordByte(msg, j-1) && !wordByte(msg, j+len(name)) {
				return true
			}
			i = j + 1
		}
	}
	return false
}

// wordByte reports whether msg[i] is a name's byte; false outside msg.
func wordByte(msg string, i int) bool {
	if i < 0 || i >= len(msg) {
		return false
	}
	b := msg[i]
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

package proxy

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// call is one tools/call of a listed tool on its way through the proxy,
// whatever carries it: a stdio line (session.call), an HTTP body
// (httpProxy.call) or a member of a JSON-RPC batch (httpProxy.batch). Its
// fate is decided here and nowhere else; a transport frames the bytes:
//
//   - now: the proxy answers it before forwarding (answer(nil));
//   - a guard or a limiter refuses it (refused);
//   - it is forwarded (forwarded): a call without issues is done, and one
//     with issues waits for the server's response, which settle turns
//     into selfheal's answer or passes, logging a disagreement.
//
// Each call is reported once, to the call log and the observer (report).
type call struct {
	p    *Proxy
	id   []byte // the request's id, as the client wrote it
	tool *tool
	// list are the issues the schema finds, nil for none (or for arguments
	// forwarded unchecked).
	list issues.List
	// now: the proxy answers the call itself, before forwarding it. Else a
	// call with issues is forwarded, and they explain the server's
	// rejection (see settle).
	now bool
	// locale is the language tag the answer is in ("" for the engine's);
	// stateless: the call speaks a stateless revision (2026-07-28 or
	// later), whose results carry their resultType. The transport sets
	// both when the call may be answered (list, or a guard).
	locale    string
	stateless bool
	start     time.Time
	// session is the key of the call's session for WithOutcomes ("" for
	// none); the transport sets it.
	session string
	// ownReason: the server refused the call for a reason of its own
	// (see settle), which settles no answer before it.
	ownReason bool
}

// decide checks the arguments of m, a tools/call of t. The schema is a
// prediction of what the server accepts, not the truth, so only what the
// server would get wrong without saying so is answered before forwarding:
// near misses of declared keys, which the server drops. With WithStrict,
// every issue is. Arguments nested past the depth limit are checked down
// to it, and the part past it is the server's to judge; WithStrict
// refuses them. A request that is not well-formed JSON is left to the
// server.
//
// Arguments of more JSON values than maxCheckedValues are checked at their
// top level only (see topIssues): their near misses are answered, the rest
// is the server's, in either mode. Checking the others costs checkCost
// bytes a value, taken from the body-memory budget (WithBodyMemory) while
// it runs; when none is free within budgetWait (or ctx ends first), they
// are checked at their top level too.
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
	c.now = p.cfg.strict || issuesx.HasNearMiss(list)
	return c
}

// answer returns the response (one line) to the call, whose arguments
// failed with c.list: the validation_error, in c.locale, in the call's
// revision. rej is the server's rejection the answer explains (see
// settle), or nil for a call answered before forwarding.
func (c *call) answer(rej *rejection) []byte {
	t := c.tool
	e := c.p.cfg.EngineFor(c.locale)
	sc := toolcall.Structured(e, c.list)
	var text string
	if rej == nil {
		text = toolcall.Text(e, t.name, c.list, t.contract)
	} else {
		// What the server said stays where the model reads it: it may have
		// failed for a reason the schema cannot see (a missing file).
		said := e.ServerMessage(rej.message)
		sc.ServerMessage = said
		v := e.Result(t.name, c.list)
		v.Contract = t.contract
		v.ServerMessage = said
		text = v.String()
	}
	res := callResult{
		Content:    []textContent{{Type: "text", Text: text}},
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

// refused returns the response (one line) to the call that a guard or a
// limiter refused with te.
func (c *call) refused(te *envelope.ToolError) []byte {
	line := responseLine(c.id, callResult{
		Content:    []textContent{{Type: "text", Text: te.String()}},
		IsError:    te.IsError(),
		ResultType: resultType(c.stateless),
	})
	c.report(string(te.Code), nil, Event{Answered: true, Code: string(te.Code)})
	return line
}

// forwarded notes that the call went to the server: a call without issues
// is done; one with issues is reported when its response comes (settle).
func (c *call) forwarded() {
	if c.list == nil {
		c.report("", nil, Event{})
	}
}

// settle returns what the client receives for the server's response m to
// the call, forwarded with issues: selfheal's answer in place of a
// rejection that is about the arguments (see aboutArguments), else nil,
// and the server's response passes untouched. When the server accepts a
// call the schema calls bad, or refuses it for a reason of its own, the
// disagreement is logged (once per tool) and reported.
//
// A rejection that is already a validation_error (a server built with
// selfheal, or another proxy in front of it) passes untouched too: it
// explains the call itself, and nesting one envelope in another would say
// everything twice.
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

// report writes the call's line to the call log, when the proxy answered
// it (answer is what it answered) or the server accepted it against its
// schema, settles the answer before it in its session (WithOutcomes),
// counts it for the log's tally, and gives ev, completed, to the observer:
// the one place a call is reported.
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
		codes, paths := toolcall.Summary(toolcall.Structured(c.p.cfg.Engine, c.list).Issues)
		c.p.logCall(callLogLine{Tool: c.tool.name, Codes: codes, Paths: paths, Answer: "accepted", Disagreed: true})
	}
	if c.p.repairs != nil {
		if !ev.Answered && !c.ownReason && c.session != "" {
			// Forwarded valid, or accepted by the server against its
			// schema: the answer before it, if any, repaired the call.
			c.p.repairs.Accepted(c.session, c.tool.name)
		}
		c.p.tally(c.tool.name)
	}
	if f := c.p.cfg.observer; f != nil {
		f(ev)
	}
}

// aboutArguments reports whether the server's rejection is about the
// call's arguments (DESIGN: whose failure it is): a JSON-RPC -32602, a
// message naming a field the schema flags, or an issue the schema makes
// certain (anything but the ones servers commonly tolerate: a quoted
// number, an extra key, a loose format). Otherwise the server failed for
// a reason of its own (a missing file, the network), and a model must not
// be told to fix a field that is not why its call failed.
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

// tolerated reports whether servers commonly accept what the issue
// flags: an undeclared key (dropped), a value off its format (checked
// loosely, if at all), a number sent as a string (coerced, as zod's
// z.coerce does). A near miss is never tolerated: it is answered before
// forwarding.
func tolerated(is *issues.Issue) bool {
	switch is.Code {
	case issues.UnrecognizedKeys:
		return is.Check != issues.CheckNearMiss
	case issues.InvalidFormat:
		return true
	case issues.InvalidType:
		s, ok := is.Input.(string)
		return ok && !is.Absent && (is.Expected.Has(issues.TypeNumber) || is.Expected.Has(issues.TypeInteger)) && numeric(s)
	}
	return false
}

// numeric reports whether s is a number as a server coercing it reads it.
func numeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	return err == nil
}

// namesField reports whether msg names the field of the issue: the last
// key of its path, or one of its unrecognized keys, as a word.
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

// wordByte reports whether msg[i] is part of a name (a letter, a digit, _
// or -); false outside msg.
func wordByte(msg string, i int) bool {
	if i < 0 || i >= len(msg) {
		return false
	}
	b := msg[i]
	return b == '_' || b == '-' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z'
}

package proxy

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// call handles a tools/call request from the client. A call of a listed
// tool is checked against its schema (see [Proxy] for what is answered
// when); every other message passes through: a notification, an id the
// proxy does not answer (see wire.Answerable), params it cannot read, a tool it
// has not seen listed or whose listing is stale, a line that is not
// well-formed JSON. The server answers them.
func (s *session) call(line []byte, m *wire.Message) error {
	// The key is made a string only for a call the session keeps (one
	// explained or guarded): a valid call allocates none.
	var buf [64]byte
	k, ok := wire.AppendAnswerable(buf[:0], m.ID)
	if !ok {
		return s.writeServer(line)
	}
	c, ok := readCall(m)
	if !ok {
		return s.writeServer(line)
	}
	start := time.Now()
	t, need := s.tools.find(c.Name)
	switch need {
	case listFirst:
		t, _ = s.awaitListing(c.Name, wire.StatelessMeta(c.Meta))
	case revalidate:
		s.revalidate()
	}
	if t == nil {
		return s.writeServer(line)
	}
	v := s.p.judge(t, c, m.Valid)
	guarded := s.p.cfg.limits != nil || s.limiter != nil
	// The revision matters only to an answer: a valid call does not read it.
	stateless := (v.list != nil || guarded) && wire.StatelessMeta(c.Meta)
	if v.now {
		s.mu.Lock()
		locale := s.locale
		s.mu.Unlock()
		return s.writeClient(s.p.issuesAnswer(&explanation{id: m.ID, tool: t, list: v.list, locale: callLocale(c.Meta, locale), stateless: stateless, start: start, session: s.key}, nil))
	}
	explained := v.list != nil
	if explained {
		s.mu.Lock()
		locale := s.locale
		s.mu.Unlock()
		s.expect(string(k), &explanation{id: bytes.Clone(m.ID), tool: t, list: v.list, locale: callLocale(c.Meta, locale), stateless: stateless, start: start, session: s.key})
	}
	if guarded {
		if !explained && !m.Valid {
			return s.writeServer(line) // malformed: the server answers, with no slot taken
		}
		return s.guarded(line, answerTo{id: m.ID, stateless: stateless}, string(k), t, start, explained)
	}
	err := s.writeServer(line)
	if !explained {
		s.p.observe(Event{Tool: t.name, Duration: time.Since(start), session: s.key})
	}
	return err
}

// verdict is what the proxy makes of a call's arguments.
type verdict struct {
	// list are the issues the schema finds, nil for none (or for arguments
	// forwarded unchecked).
	list issues.List
	// now: the proxy answers the call itself, before forwarding it. Else a
	// call with issues is forwarded, and they explain the server's
	// rejection (see explain).
	now bool
}

// judge checks the arguments of a call of t; valid says whether the
// request is well-formed JSON (see message). The schema is a prediction of
// what the server accepts, not the truth, so only what the server would
// get wrong without saying so is answered before forwarding: near misses
// of declared keys, which the server drops. With WithStrict, every issue
// is. Arguments nested past the depth limit are forwarded unchecked,
// except with WithStrict, which refuses them. A request that is not
// well-formed JSON is left to the server.
func (p *Proxy) judge(t *tool, c wire.CallParams, valid bool) verdict {
	if t.schema == nil {
		return verdict{}
	}
	list := arguments(t, c, p.cfg.MaxDepth)
	if list == nil || !valid {
		return verdict{}
	}
	if toolcall.IsDepthRefusal(list) && !p.cfg.strict {
		return verdict{}
	}
	return verdict{list: list, now: p.cfg.strict || issuesx.HasNearMiss(list)}
}

// Methods the proxy reads.
const (
	methodInitialize  = "initialize"
	methodToolsList   = "tools/list"
	methodToolsCall   = "tools/call"
	methodCancelled   = "notifications/cancelled"
	methodListChanged = "notifications/tools/list_changed"
)

// readCall returns the params of a tools/call; ok is false when they are
// not an object.
func readCall(m *wire.Message) (c wire.CallParams, ok bool) {
	return m.Call, m.ParamsObject
}

// callLocale is the language a call asks for in its _meta, else session's.
func callLocale(meta []byte, session string) string {
	if tag := metaLocale(meta); tag != "" {
		return tag
	}
	return session
}

// arguments checks a call's raw arguments to t as the Go integrations do
// (see mcp/gosdk's AddTool) and returns their issues, or nil when they are
// valid. Arguments nested deeper than maxDepth are refused from their
// bytes. Absent arguments are validated as {} (a tool without required
// arguments may be called without any), and when that fails the issues
// also say at (root) that they are missing. Arguments that are not an
// object are one invalid_type issue at (root). A required property with a
// default is never missing: the server fills it in.
func arguments(t *tool, c wire.CallParams, maxDepth int) issues.List {
	sch := t.schema
	raw := c.Args
	if len(raw) == 0 {
		if list := t.defaulted.drop(sch.Validate(map[string]any{})); list != nil {
			return toolcall.Absent(list)
		}
		return nil
	}
	limit := maxDepth
	if limit == 0 {
		limit = issues.DefaultMaxDepth
	}
	if !c.Scanned || (limit > 0 && c.Depth > limit) {
		// Measured too deep, or not measured: DepthIssues finds where.
		if list := toolcall.DepthIssues(raw, maxDepth); list != nil {
			return list
		}
	}
	var inst any
	var err error
	if c.Scanned && c.Plain && c.Depth <= jsonvalue.MaxDepth {
		inst = jsonvalue.DecodeScanned(raw) // wire.Decode checked what Decode would
	} else {
		inst, err = jsonvalue.Decode(raw)
	}
	if err != nil {
		return sch.ValidateJSON(raw)
	}
	if _, ok := inst.(map[string]any); !ok {
		return toolcall.NotObject(inst)
	}
	return t.defaulted.drop(toolcall.Validate(sch, inst))
}

// answerTo is what the proxy needs of a request to answer it itself: its
// id, as the client wrote it, and whether it speaks a stateless revision
// (2026-07-28 or later), whose results carry their resultType.
type answerTo struct {
	id        []byte
	stateless bool
}

// resultType is the resultType of the proxy's own results in a stateless
// revision: they are all final.
func resultType(stateless bool) string {
	if stateless {
		return "complete"
	}
	return "" // omitted: a 2025 result is today's bytes
}

// response is a JSON-RPC response to a tools/call the proxy answers.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  callResult      `json:"result"`
}

// callResult is an MCP CallToolResult as the Go integrations send it for a
// failed call: one text block, isError, and a validation failure's issues
// in structuredContent or, for a tool with an output schema, in _meta.
type callResult struct {
	Content           []textContent           `json:"content"`
	IsError           bool                    `json:"isError,omitempty"`
	StructuredContent *toolcall.IssuesContent `json:"structuredContent,omitempty"`
	Meta              map[string]any          `json:"_meta,omitempty"`
	// ResultType is "complete" in a stateless revision, which requires it
	// of every result; absent before.
	ResultType string `json:"resultType,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// issuesAnswer returns the response (one line) to the call x whose
// arguments failed with x.list: the validation_error, in the language tag
// x.locale asks for ("" for the engine's), in the call's revision. rej is
// the server's rejection the answer explains (see explain), or nil for a
// call answered before forwarding. It reports the call to the call log and
// the observer.
func (p *Proxy) issuesAnswer(x *explanation, rej *rejection) []byte {
	t := x.tool
	e := p.cfg.EngineFor(x.locale)
	sc := toolcall.Structured(e, x.list)
	var text string
	if rej == nil {
		text = toolcall.Text(e, t.name, x.list, t.contract)
	} else {
		// What the server said stays where the model reads it: it may have
		// failed for a reason the schema cannot see (a missing file).
		said := e.ServerMessage(rej.message)
		sc.ServerMessage = said
		v := e.Result(t.name, x.list)
		v.Contract = t.contract
		v.ServerMessage = said
		text = v.String()
	}
	res := callResult{
		Content:    []textContent{{Type: "text", Text: text}},
		IsError:    true,
		ResultType: resultType(x.stateless),
	}
	if t.output {
		res.Meta = map[string]any{toolcall.MetaIssues: sc}
	} else {
		res.StructuredContent = &sc
	}
	line := responseLine(x.id, res)
	if p.cfg.callLog != nil || p.cfg.observer != nil || p.repairs != nil {
		codes, paths := toolcall.Summary(sc.Issues)
		var id string
		if p.repairs != nil {
			id = p.repairs.Answered(x.session, t.name, paths)
		}
		p.logCall(callLogLine{ID: id, Tool: t.name, Codes: codes, Paths: paths, Answer: "validation_error"})
		p.observe(Event{Tool: t.name, Answered: true, Explained: rej != nil, Code: string(envelope.ValidationErrorCode), Issues: codes, Duration: time.Since(x.start), session: x.session})
	}
	return line
}

// toolErrorAnswer returns the response (one line) to the call a that a
// guard refused with te, and reports it.
func (p *Proxy) toolErrorAnswer(a answerTo, t *tool, te *envelope.ToolError, start time.Time) []byte {
	line := responseLine(a.id, callResult{
		Content:    []textContent{{Type: "text", Text: te.String()}},
		IsError:    te.IsError(),
		ResultType: resultType(a.stateless),
	})
	p.logCall(callLogLine{Tool: t.name, Answer: string(te.Code)})
	p.observe(Event{Tool: t.name, Answered: true, Code: string(te.Code), Duration: time.Since(start)})
	return line
}

// answerToolError answers a call with a tool_error (a guard's).
func (s *session) answerToolError(a answerTo, t *tool, te *envelope.ToolError, start time.Time) error {
	return s.writeClient(s.p.toolErrorAnswer(a, t, te, start))
}

// responseLine is the response to the request of id, with the id as the
// request wrote it: one line, ending with a newline.
func responseLine(id []byte, res callResult) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends the line
	enc.SetEscapeHTML(false)     // the text is XML: keep its < and > readable
	if err := enc.Encode(response{JSONRPC: "2.0", ID: id, Result: res}); err != nil {
		panic(err) // not reached: every value here encodes
	}
	return buf.Bytes()
}

// observe reports ev to WithObserver's function, if any, and a call
// forwarded to the tracker of outcomes: it settles the answer before it
// as repaired (see WithOutcomes).
func (p *Proxy) observe(ev Event) {
	if p.repairs != nil {
		p.tally(ev)
	}
	if f := p.cfg.observer; f != nil {
		f(ev)
	}
}

// callLogLine is one line of WithCallLog: an answer, or the settlement of
// one (Of, Outcome), or a tally of the calls (Calls).
type callLogLine struct {
	Time      string   `json:"time"`
	ID        string   `json:"id,omitempty"`
	Of        string   `json:"of,omitempty"`
	Tool      string   `json:"tool,omitempty"`
	Codes     []string `json:"codes,omitempty"`
	Paths     []string `json:"paths,omitempty"`
	Answer    string   `json:"answer,omitempty"`
	Disagreed bool     `json:"disagreed,omitempty"`
	Outcome   string   `json:"outcome,omitempty"`
	Attempt   int      `json:"attempt,omitempty"`
	AfterMS   *int64   `json:"after_ms,omitempty"`
	// Calls are the calls of listed tools checked since the last tally,
	// by tool.
	Calls map[string]int64 `json:"calls,omitempty"`
}

// logCall writes one line to the call log, if any, with the time now. A
// failure is logged once.
func (p *Proxy) logCall(l callLogLine) {
	if p.cfg.callLog == nil {
		return
	}
	l.Time = time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00")
	data, err := json.Marshal(l)
	if err != nil {
		return // not reached: every value here encodes
	}
	data = append(data, '\n')
	p.callLogMu.Lock()
	_, err = p.cfg.callLog.Write(data)
	p.callLogMu.Unlock()
	if err != nil && p.callLogFailed.CompareAndSwap(false, true) {
		p.cfg.Logger.Warn("selfheal proxy: cannot write the call log; later failures are not logged", "error", err)
	}
}

package proxy

import (
	"bytes"
	"cmp"
	"encoding/json"
	"time"

	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// call frames a tools/call from the client as lines; the proxy decides its
// fate (see [call]). Every other message passes through, for the server to
// answer: a notification, an id the proxy cannot answer, unreadable
// params, a tool not listed or whose listing is stale, a line not JSON.
func (s *session) call(line []byte, m *wire.Message) error {
	// The key becomes a string only for a call the session keeps: a valid
	// call allocates none.
	var buf [64]byte
	k, ok := wire.AppendAnswerable(buf[:0], m.ID)
	if !ok || !m.ParamsObject {
		return s.writeServer(line)
	}
	start := time.Now()
	t, need := s.tools.find(m.Call.Name)
	switch need {
	case listFirst:
		t, _ = s.awaitListing(m.Call.Name, wire.StatelessMeta(m.Call.Meta))
	case revalidate:
		s.revalidate()
	}
	if t == nil {
		return s.writeServer(line)
	}
	c := s.p.decide(s.ctx, t, m, start)
	c.session = s.key
	guarded := s.p.cfg.limits != nil || s.limiter != nil
	if c.list != nil || guarded {
		// Read only for an answer: a valid call reads neither.
		s.mu.Lock()
		c.locale = callLocale(m.Call.Meta, s.locale)
		s.mu.Unlock()
		c.stateless = wire.StatelessMeta(m.Call.Meta)
	}
	if c.now {
		return s.writeClient(c.answer(nil))
	}
	if c.list != nil {
		x := c                   // kept, so on the heap: only a call with issues is
		x.id = bytes.Clone(m.ID) // the line is read over
		s.expect(string(k), &x)
	}
	if guarded {
		if c.list == nil && !m.Valid {
			return s.writeServer(line) // malformed: the server answers, with no slot taken
		}
		return s.guarded(line, &c, string(k))
	}
	err := s.writeServer(line)
	c.forwarded()
	return err
}

// Methods the proxy reads.
const (
	methodInitialize  = "initialize"
	methodToolsList   = "tools/list"
	methodToolsCall   = "tools/call"
	methodCancelled   = "notifications/cancelled"
	methodListChanged = "notifications/tools/list_changed"
)

// callLocale is the language a call asks for in its _meta, else session's.
func callLocale(meta []byte, session string) string {
	if tag := metaLocale(meta); tag != "" {
		return tag
	}
	return session
}

// arguments checks a call's arguments to t as the Go integrations do and
// returns their issues, nil when valid. Absent arguments are validated as
// {} (and said missing at (root) when that fails); a non-object is one
// invalid_type at (root); a required property with a default is never
// missing (the server fills it in).
func arguments(t *tool, c wire.CallParams, maxDepth int, strict bool) issues.List {
	sch := t.schema
	raw := c.Args
	if len(raw) == 0 {
		if list := t.defaulted.drop(sch.Validate(map[string]any{})); list != nil {
			return toolcall.Absent(list)
		}
		return nil
	}
	limit := cmp.Or(maxDepth, issues.DefaultMaxDepth)
	if !c.Scanned || (limit > 0 && c.Depth > limit) {
		// Measured too deep, or not measured: DepthIssues finds where.
		if list := toolcall.DepthIssues(raw, maxDepth); list != nil {
			if strict {
				return list
			}
			if c.Values > maxCheckedValues {
				return topIssues(t, raw)
			}
			return shallowIssues(t, raw, limit)
		}
	}
	if c.Scanned && c.Values > maxCheckedValues {
		// Too many values to build and check whole: the top level only.
		return topIssues(t, raw)
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

// maxCheckedValues is the most JSON values of a call's arguments decoded
// and checked whole; checkCost is each one's cost in bytes while checked:
// about 100 decoded and 300 for jsonschema v6's walk (2 MiB of [1,1,...]
// took 101 MB to decode and 280 MB to check). No real tool's arguments
// come near it: an array of a hundred thousand numbers is the server's.
const (
	maxCheckedValues = 100_000
	checkCost        = 400
)

// topIssues checks arguments too large to build whole: the object's top
// level (its keys and scalars), each object or array in it left to the
// server, so that its cost is that of the top level.
func topIssues(t *tool, raw []byte) issues.List {
	args := map[string]any{}
	cut := map[string]bool{}
	if !wire.Members(raw, func(k, v []byte) {
		if len(v) > 0 && (v[0] == '{' || v[0] == '[') {
			args[string(k)], cut[string(k)] = nil, true
			return
		}
		delete(cut, string(k))
		args[string(k)], _ = jsonvalue.Decode(v)
	}) {
		return nil // not an object: the server's
	}
	list := t.defaulted.drop(toolcall.Validate(t.schema, args))
	kept := list[:0]
	for _, is := range list {
		if len(is.Path) == 0 {
			if is.Code == issues.UnrecognizedKeys {
				kept = append(kept, is)
			}
		} else if k, ok := is.Path[0].(string); !ok || !cut[k] {
			kept = append(kept, is)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// shallowIssues checks arguments nested deeper than limit down to it: what
// lies past is cut, with its issues, and left to the server. A model
// sending a free-form value too deep still learns what is wrong above it.
func shallowIssues(t *tool, raw []byte, limit int) issues.List {
	inst, err := jsonvalue.Decode(raw)
	args, ok := inst.(map[string]any)
	if err != nil || !ok {
		return nil // too deep even to decode, or not an object: the server's
	}
	var cut func(v any, depth int) any
	cut = func(v any, depth int) any {
		switch v := v.(type) {
		case map[string]any:
			if depth >= limit {
				return nil
			}
			for k, e := range v {
				v[k] = cut(e, depth+1)
			}
		case []any:
			if depth >= limit {
				return nil
			}
			for i, e := range v {
				v[i] = cut(e, depth+1)
			}
		}
		return v
	}
	cut(args, 0)
	list := t.defaulted.drop(toolcall.Validate(t.schema, args))
	kept := list[:0]
	for _, is := range list {
		if len(is.Path) < limit {
			kept = append(kept, is)
		}
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// resultType is the proxy's own results' resultType: final, in a stateless
// revision.
func resultType(stateless bool) string {
	if stateless {
		return "complete"
	}
	return "" // omitted: a 2025 result is today's bytes
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  callResult      `json:"result"`
}

// callResult is a CallToolResult as the Go integrations send it for a
// failed call: one text block, isError, the issues in structuredContent
// or, with an output schema, in _meta.
type callResult struct {
	Content           []textContent           `json:"content"`
	IsError           bool                    `json:"isError,omitempty"`
	StructuredContent *toolcall.IssuesContent `json:"structuredContent,omitempty"`
	Meta              map[string]any          `json:"_meta,omitempty"`
	// ResultType is "complete" in a stateless revision; absent before.
	ResultType string `json:"resultType,omitempty"`
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// responseLine is the response to the request of id (as written), one line.
func responseLine(id []byte, res callResult) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends the line
	enc.SetEscapeHTML(false)     // the text is XML: keep its < and > readable
	if err := enc.Encode(response{JSONRPC: "2.0", ID: id, Result: res}); err != nil {
		panic(err) // not reached: every value here encodes
	}
	return buf.Bytes()
}

// callLogLine is a WithCallLog line: an answer, a settlement (Of, Outcome)
// or a tally (Calls).
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
	// Calls are the calls checked since the last tally, by tool.
	Calls map[string]int64 `json:"calls,omitempty"`
}

// logCall writes a line to the call log, if any; a failure is logged once.
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

package proxy

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// call handles a tools/call request from the client: a call of a listed
// tool whose arguments fail its schema is answered here; every other one
// is forwarded unchanged (through the tool's guard, with WithGuard). A
// notification, an id that is neither a string nor a number, params the
// proxy cannot read, a tool it has not seen listed, and a line that is not
// well-formed JSON pass through: the server answers them.
func (s *session) call(line []byte, m *message) error {
	key, ok := idKey(m.id)
	if !ok {
		return s.writeServer(line)
	}
	var name, args, meta []byte
	if !members(m.params, func(k, v []byte) {
		switch string(k) {
		case `"name"`:
			name = v
		case `"arguments"`:
			args = v
		case `"_meta"`:
			meta = v
		}
	}) {
		return s.writeServer(line)
	}
	s.mu.Lock()
	t := s.tools[str(name)]
	locale := s.locale
	s.mu.Unlock()
	if t == nil {
		return s.writeServer(line)
	}
	start := time.Now()
	if t.schema != nil {
		if list := arguments(t.schema, args, s.p.cfg.MaxDepth); list != nil {
			if !json.Valid(line) {
				return s.writeServer(line) // malformed: the server answers
			}
			if tag := metaLocale(meta); tag != "" {
				locale = tag
			}
			return s.answerIssues(m.id, t, list, locale, start)
		}
	}
	if s.p.cfg.limits != nil || s.p.cfg.limiter != nil {
		if !json.Valid(line) {
			return s.writeServer(line) // malformed: the server answers, with no slot taken
		}
		return s.guarded(line, m.id, key, t, start)
	}
	err := s.writeServer(line)
	s.observe(Event{Tool: t.name, Duration: time.Since(start)})
	return err
}

// arguments checks a call's raw arguments as the Go integrations do (see
// mcp/gosdk's AddTool) and returns their issues, or nil when they are
// valid. Arguments nested deeper than maxDepth are refused from their
// bytes. Absent arguments are validated as {} (a tool without required
// arguments may be called without any), and when that fails the issues
// also say at (root) that they are missing. Arguments that are not an
// object are one invalid_type issue at (root).
func arguments(sch *jsonschemav6.Schema, raw []byte, maxDepth int) issues.List {
	if len(raw) == 0 {
		if list := sch.Validate(map[string]any{}); list != nil {
			return toolcall.Absent(list)
		}
		return nil
	}
	if list := toolcall.DepthIssues(raw, maxDepth); list != nil {
		return list
	}
	inst, err := jsonvalue.Decode(raw)
	if err != nil {
		return sch.ValidateJSON(raw)
	}
	if _, ok := inst.(map[string]any); !ok {
		return toolcall.NotObject(inst)
	}
	return sch.Validate(inst)
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
}

type textContent struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// answerIssues answers a call whose arguments failed with the
// validation_error, in the language tag asks for ("" for the engine's).
func (s *session) answerIssues(id []byte, t *tool, list issues.List, tag string, start time.Time) error {
	e := s.p.cfg.EngineFor(tag)
	sc := toolcall.Structured(e, list)
	res := callResult{
		Content: []textContent{{Type: "text", Text: toolcall.Text(e, t.name, list, t.contract)}},
		IsError: true,
	}
	if t.output {
		res.Meta = map[string]any{toolcall.MetaIssues: sc}
	} else {
		res.StructuredContent = &sc
	}
	err := s.answer(id, res)
	if s.p.cfg.callLog != nil || s.p.cfg.observer != nil {
		codes, paths := summary(sc.Issues)
		s.p.logCall(t.name, codes, paths, "validation_error")
		s.observe(Event{Tool: t.name, Answered: true, Code: string(envelope.ValidationErrorCode), Issues: codes, Duration: time.Since(start)})
	}
	return err
}

// answerToolError answers a call with a tool_error (a guard's).
func (s *session) answerToolError(id []byte, t *tool, te *envelope.ToolError, start time.Time) error {
	res := callResult{
		Content: []textContent{{Type: "text", Text: te.String()}},
		IsError: te.IsError(),
	}
	err := s.answer(id, res)
	s.p.logCall(t.name, nil, nil, string(te.Code))
	s.observe(Event{Tool: t.name, Answered: true, Code: string(te.Code), Duration: time.Since(start)})
	return err
}

// answer writes the response to the request of id to the client: one line,
// with the id as the request wrote it.
func (s *session) answer(id []byte, res callResult) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends the line
	enc.SetEscapeHTML(false)     // the text is XML: keep its < and > readable
	if err := enc.Encode(response{JSONRPC: "2.0", ID: id, Result: res}); err != nil {
		return err // not reached: every value here encodes
	}
	return s.writeClient(buf.Bytes())
}

// summary returns the codes of the issues, in order, and their paths, each
// once. The issues are Structured's: long keys in paths are already cut.
func summary(list issues.List) (codes, paths []string) {
	codes = make([]string, 0, len(list))
	seen := map[string]bool{}
	for i := range list {
		codes = append(codes, string(list[i].Code))
		p := list[i].Path.String()
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return codes, paths
}

// observe reports ev to WithObserver's function, if any.
func (s *session) observe(ev Event) {
	if f := s.p.cfg.observer; f != nil {
		f(ev)
	}
}

// callLogLine is one line of WithCallLog.
type callLogLine struct {
	Time   string   `json:"time"`
	Tool   string   `json:"tool"`
	Codes  []string `json:"codes,omitempty"`
	Paths  []string `json:"paths,omitempty"`
	Answer string   `json:"answer"`
}

// logCall writes one line to the call log, if any. A failure is logged
// once.
func (p *Proxy) logCall(tool string, codes, paths []string, answer string) {
	if p.cfg.callLog == nil {
		return
	}
	data, err := json.Marshal(callLogLine{
		Time:   time.Now().UTC().Format("2006-01-02T15:04:05.000Z07:00"),
		Tool:   tool,
		Codes:  codes,
		Paths:  paths,
		Answer: answer,
	})
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

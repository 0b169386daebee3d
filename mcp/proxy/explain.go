package proxy

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// maxExplanations bounds the calls of a session forwarded with issues and
// awaiting the server's response: past it, a bad call is forwarded without
// one, and the server's answer passes as it is.
const maxExplanations = 1024

// explanation is what the proxy keeps of a call it forwarded although the
// schema found issues in it, until the server's response comes back: the
// issues explain a rejection (see explain).
type explanation struct {
	id     []byte // the request's id, as the client wrote it
	tool   *tool
	list   issues.List
	locale string
	// stateless: the call speaks a stateless revision (see answerTo).
	stateless bool
	start     time.Time
	// session is the key of the call's session for WithOutcomes, "" for
	// none.
	session string
}

// rejection is what a server said when it rejected a call.
type rejection struct {
	// message is the server's text, whole: the answer bounds it in the
	// client's language (see issuesAnswer).
	message string
}

// expect keeps the explanation of the call of key until its response.
func (s *session) expect(key string, x *explanation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.explain == nil {
		s.explain = map[string]*explanation{}
	}
	if len(s.explain) >= maxExplanations {
		return
	}
	s.explain[key] = x
}

// explained takes the explanation of the call of key, nil for none.
func (s *session) explained(key string) *explanation {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.explain[key]
	delete(s.explain, key)
	return x
}

// answer returns what the client receives for the server's response m to
// a call forwarded with issues: selfheal's answer in place of a rejection
// (a JSON-RPC error, or a result with isError), else nil, and the
// server's response passes untouched (a call the schema calls bad and the
// server accepts is reported: the schema and the server disagree).
//
// A rejection that is already a validation_error (a server built with
// selfheal, or another proxy in front of it) passes untouched too: it
// explains the call itself, and nesting one envelope in another would say
// everything twice.
func (p *Proxy) answer(x *explanation, m *wire.Message) []byte {
	rej, ok := rejected(m)
	if !ok {
		p.disagree(x.tool.name)
		if p.cfg.callLog != nil {
			codes, paths := toolcall.Summary(toolcall.Structured(p.cfg.Engine, x.list).Issues)
			p.logCall(callLogLine{Tool: x.tool.name, Codes: codes, Paths: paths, Answer: "accepted", Disagreed: true})
		}
		p.observe(Event{Tool: x.tool.name, Disagreed: true, Duration: time.Since(x.start), session: x.session})
		return nil
	}
	if strings.HasPrefix(strings.TrimSpace(rej.message), "<validation_error") {
		p.observe(Event{Tool: x.tool.name, Duration: time.Since(x.start)})
		return nil
	}
	return p.issuesAnswer(x, rej)
}

// rejected reports whether the response m rejects its call, and what the
// server said: the message (and data) of a JSON-RPC error, or the text of a
// result whose isError is true.
func rejected(m *wire.Message) (*rejection, bool) {
	switch {
	case m.Error != nil:
		return &rejection{message: errorText(m.Error)}, true
	case m.Result != nil:
		var isError bool
		var content []byte
		ok := wire.Members(m.Result, func(k, v []byte) {
			switch string(k) {
			case "isError":
				isError = string(v) == "true"
			case "content":
				content = v
			}
		})
		if !ok || !isError {
			return nil, false
		}
		return &rejection{message: resultText(content)}, true
	}
	return nil, false
}

// errorText is what a JSON-RPC error says: its message, then its data when
// there is any (a string as it is, anything else as its JSON), as an MCP
// client shows it.
func errorText(rpcErr []byte) string {
	var e struct {
		Code    json.Number     `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(rpcErr, &e) != nil {
		return string(rpcErr)
	}
	var b strings.Builder
	// The TypeScript SDK's servers write the prefix into the message
	// themselves ("MCP error -32602: ..."): said once.
	if e.Code != "" && !strings.HasPrefix(e.Message, "MCP error ") {
		b.WriteString("MCP error ")
		b.WriteString(e.Code.String())
		b.WriteString(": ")
	}
	b.WriteString(e.Message)
	if d := bytes.TrimSpace(e.Data); len(d) > 0 && string(d) != "null" {
		var s string
		if json.Unmarshal(d, &s) == nil {
			d = []byte(s)
		} else {
			var c bytes.Buffer
			if json.Compact(&c, d) == nil {
				d = c.Bytes()
			}
		}
		b.WriteString(" ")
		b.Write(d)
	}
	return b.String()
}

// resultText is the text of a tool result's content blocks, one block a
// line; a block that is not text is named by its type.
func resultText(content []byte) string {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return ""
	}
	var b strings.Builder
	for i, bl := range blocks {
		if i > 0 {
			b.WriteByte('\n')
		}
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		} else {
			b.WriteString("[" + bl.Type + " content]")
		}
	}
	return b.String()
}

// disagreements are the tools whose server accepted a call their schema
// calls bad, logged once each per proxy.
type disagreements struct {
	mu     sync.Mutex
	logged map[string]bool
}

// maxDisagreements bounds the tools remembered as logged.
const maxDisagreements = 1024

// disagree logs, once per tool, that the server accepted a call the
// tool's schema calls bad: the schema is stricter than the server, which
// decides; the operator may want to know.
func (p *Proxy) disagree(tool string) {
	d := &p.disagreed
	d.mu.Lock()
	first := !d.logged[tool] && len(d.logged) < maxDisagreements
	if first {
		if d.logged == nil {
			d.logged = map[string]bool{}
		}
		d.logged[tool] = true
	}
	d.mu.Unlock()
	if first {
		p.cfg.Logger.Info("selfheal proxy: the server accepted a call its schema calls bad; the server decides, and its result passed untouched (logged once per tool)", "tool", tool)
	}
}

package proxy

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"sync"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// maxExplanations bounds a session's calls forwarded with issues awaiting
// their response: past it, a bad call is forwarded without explanation.
const maxExplanations = 1024

// rejection is what a server said when it rejected a call.
type rejection struct {
	// message is the server's text, whole (the answer bounds it).
	message string
	// code is the JSON-RPC error's code; 0 for a result with isError.
	code int
}

func (s *session) expect(key string, x *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.explain == nil {
		s.explain = map[string]*call{}
	}
	if len(s.explain) >= maxExplanations {
		return
	}
	s.explain[key] = x
}

func (s *session) explained(key string) *call {
	s.mu.Lock()
	defer s.mu.Unlock()
	x := s.explain[key]
	delete(s.explain, key)
	return x
}

// rejected reports whether m rejects its call, and what the server said: a
// JSON-RPC error's message and data, or an isError result's text.
func rejected(m *wire.Message) (*rejection, bool) {
	switch {
	case m.Error != nil:
		msg, code := errorText(m.Error)
		return &rejection{message: msg, code: code}, true
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

// errorText is a JSON-RPC error's text as an MCP client shows it (message,
// then data), and its code.
func errorText(rpcErr []byte) (string, int) {
	var e struct {
		Code    json.Number     `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data"`
	}
	if json.Unmarshal(rpcErr, &e) != nil {
		return string(rpcErr), 0
	}
	code, _ := strconv.Atoi(e.Code.String())
	var b strings.Builder
	// The TypeScript SDK's servers write the prefix themselves: said once.
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
	return b.String(), code
}

// resultText is a result's text blocks, one a line; another block is named
// by its type.
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

// disagreements are the tools whose server and schema disagreed, logged
// once each.
type disagreements struct {
	mu     sync.Mutex
	logged map[string]bool
}

const maxDisagreements = 1024

// disagree logs, once per tool and message, that the server and its schema
// disagree: the server decides, but the operator may want to know.
func (p *Proxy) disagree(tool, msg string) {
	d := &p.disagreed
	key := tool + "\x00" + msg
	d.mu.Lock()
	first := !d.logged[key] && len(d.logged) < maxDisagreements
	if first {
		if d.logged == nil {
			d.logged = map[string]bool{}
		}
		d.logged[key] = true
	}
	d.mu.Unlock()
	if first {
		p.cfg.Logger.Info("selfheal proxy: "+msg+" (logged once per tool)", "tool", tool)
	}
}

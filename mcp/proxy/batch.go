package proxy

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// batchState is what the proxy keeps of a JSON-RPC batch it forwards (MCP
// 2025-03-26): its own answers, which join the server's responses, and the
// calls forwarded with issues, whose rejections are explained.
type batchState struct {
	answers []json.RawMessage // one response each, without a newline
	explain map[string]*call  // by wire.IDKey
}

// batch decides each tools/call of a batch as a lone call's: those answered
// before forwarding leave the batch, their answers joining the server's
// responses (mergeBatch); the rest is forwarded, r's body rewritten. done:
// every member was answered and written. release frees the slots taken.
func (h *httpProxy) batch(w http.ResponseWriter, r *http.Request, body []byte, x *exchange) (done bool, release func()) {
	var members []json.RawMessage
	if json.Unmarshal(body, &members) != nil || len(members) == 0 {
		return false, nil // the server answers what is not a batch
	}
	b := &batchState{}
	var releases []func()
	release = func() {
		for _, f := range releases {
			f()
		}
	}
	kept := members[:0:0]
	var sess *httpSession
	for _, raw := range members {
		m, ok := wire.Decode(raw)
		if !ok || m.Method != methodToolsCall {
			kept = append(kept, raw)
			continue
		}
		key, ok := wire.Answerable(m.ID)
		if !ok || !m.ParamsObject {
			kept = append(kept, raw)
			continue
		}
		if sess == nil {
			sess = h.session(x.key)
			h.listIfNeeded(r, sess, "", "") // batches are of revision 2025-03-26
		}
		t := sess.tools.lookup(m.Call.Name)
		if t == nil {
			kept = append(kept, raw)
			continue
		}
		// Batches are of revision 2025-03-26: stateless only for a member
		// that says otherwise.
		answer, fc := h.decide(r, sess, x.key, t, m, wire.IsStateless(requestRevision(r, m.Call.Meta)), time.Now())
		if answer != nil {
			b.answers = append(b.answers, bytes.TrimRight(answer, "\n"))
			continue
		}
		if fc.release != nil {
			releases = append(releases, fc.release)
		}
		if fc.list != nil {
			if b.explain == nil {
				b.explain = map[string]*call{}
			}
			c := fc.call
			b.explain[key] = &c
		}
		kept = append(kept, raw)
	}
	if len(kept) == 0 {
		writeAnswer(w, r, true, b.answers...)
		return true, release
	}
	if len(b.answers) == 0 && b.explain == nil {
		return false, release
	}
	x.batch = b
	if len(kept) < len(members) {
		setRequestBody(r, joinArray(kept))
	}
	return false, release
}

func joinArray(msgs []json.RawMessage) []byte {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, m := range msgs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(m)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// mergeBatch puts the proxy's part into the server's response to a batch:
// explained rejections in place, its own answers added. A JSON response
// becomes an array; a stream gets the answers as its first events, its
// rejections explained as they pass (tap); a 202 (only notifications were
// left) becomes a 200 with the answers.
func (h *httpProxy) mergeBatch(resp *http.Response, x *exchange) error {
	b := x.batch
	switch wire.MediaType(resp.Header.Get("Content-Type")) {
	case "application/json":
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var msgs []json.RawMessage
		if json.Unmarshal(data, &msgs) != nil {
			msgs = []json.RawMessage{data} // one response, or what the server wrote
		}
		for i, raw := range msgs {
			msgs[i] = h.explainMember(raw, b)
		}
		setResponseBody(resp, joinArray(append(msgs, b.answers...)))
	case "text/event-stream":
		var events bytes.Buffer
		for _, a := range b.answers {
			_ = eventstream.WriteEvent(&events, "", a) // a bytes.Buffer does not fail
		}
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(&events, h.tap(resp.Body, x)), resp.Body}
		resp.ContentLength = -1 // events added, or replaced
		resp.Header.Del("Content-Length")
	default:
		if resp.StatusCode != http.StatusAccepted || len(b.answers) == 0 {
			return nil
		}
		resp.Body.Close()
		resp.StatusCode, resp.Status = http.StatusOK, "200 OK"
		resp.Header.Set("Content-Type", "application/json")
		setResponseBody(resp, joinArray(b.answers))
	}
	return nil
}

// explainMember returns a batch's response raw, or the explanation in its
// place.
func (h *httpProxy) explainMember(raw json.RawMessage, b *batchState) json.RawMessage {
	m, ok := wire.Decode(raw)
	if !ok {
		return raw
	}
	if c := b.take(m); c != nil {
		if answer := c.settle(m); answer != nil {
			return bytes.TrimRight(answer, "\n")
		}
	}
	return raw
}

// take returns and forgets the call forwarded with issues that m answers.
func (b *batchState) take(m *wire.Message) *call {
	key, ok := wire.IDKey(m.ID)
	if !ok || !m.IsResponse() || b.explain[key] == nil {
		return nil
	}
	c := b.explain[key]
	delete(b.explain, key)
	return c
}

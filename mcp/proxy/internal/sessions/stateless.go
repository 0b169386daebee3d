package sessions

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// envelopeKeys are the _meta members of a stateless request's envelope: a
// bridged server gets the request without them, since a server of the
// session era may refuse a request naming a later revision (the go-sdk's
// does).
var envelopeKeys = []string{wire.MetaProtocolVersion, wire.MetaClientInfo, wire.MetaClientCapabilities, metaLogLevel}

// cacheable are the methods whose results revision 2026-07-28 requires to
// carry ttlMs and cacheScope.
var cacheable = map[string]bool{
	"tools/list": true, "prompts/list": true, "resources/list": true,
	"resources/templates/list": true, "resources/read": true,
}

// serveStateless serves one request of a client of revision 2026-07-28 on
// the process, under an id of the proxy's own, as JSON or an event stream
// (a subscriptions/listen always a stream). It ends with the response, when
// the client goes (the server is told: notifications/cancelled), or when
// the server stays silent too long.
func (s *session) serveStateless(w http.ResponseWriter, r *http.Request, m posted, listen bool) {
	st := &stream{
		wake: make(chan struct{}, 1), sse: listen || eventstream.Accepts(r.Header, "text/event-stream"),
		clientID: m.id, method: m.method, auth: r.Header.Get("Authorization"), listen: listen,
	}
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		answerNow(w, http.StatusOK, wire.ErrorResponse(m.id, wire.CodeInternalError, "Internal error: the MCP server exited before it answered"))
		return
	}
	s.ownSeq++
	ownID := []byte(strconv.Quote(relay.OwnPrefix + s.nonce + "/" + strconv.FormatUint(s.ownSeq, 10)))
	st.key, _ = wire.IDKey(ownID)
	var tok []byte
	if t := member(member(member(m.line, "params"), "_meta"), "progressToken"); t != nil {
		s.ownSeq++
		tok = []byte(strconv.Quote(relay.OwnPrefix + s.nonce + "/progress/" + strconv.FormatUint(s.ownSeq, 10)))
		st.tokenKey, _ = wire.IDKey(tok)
		st.clientTok = bytes.Clone(t)
		s.progress[st.tokenKey] = st
		st.tokens = []string{st.tokenKey}
	}
	line := s.rewriteRequest(m.line, ownID, tok)
	st.pending = map[string][]byte{st.key: m.id}
	st.order = []string{st.key}
	if !st.sse {
		st.answers = map[string][]byte{}
	}
	s.waiters[st.key] = st
	s.mu.Unlock()

	s.pump(w, r, st, 0, false, nil, s.sendAsync(line))
}

// errorStatus is the HTTP status the SDKs give an error answer that comes
// alone; any other answer is 200.
func errorStatus(answer []byte) int {
	code := member(member(answer, "error"), "code")
	switch string(code) {
	case "-32601":
		return http.StatusNotFound
	case "-32700", "-32600", "-32020", "-32021", "-32022":
		return http.StatusBadRequest
	}
	return http.StatusOK
}

// rewriteRequest returns a client's request under the proxy's id and
// progress token (tok nil: none), for a bridge without the stateless
// envelope. s.mu is held.
func (s *session) rewriteRequest(line, id, tok []byte) []byte {
	body := setMember(bytes.TrimRight(line, "\r\n"), "id", id)
	params := member(body, "params")
	if meta := member(params, "_meta"); meta != nil {
		if tok != nil {
			meta = setMember(meta, "progressToken", tok)
		}
		if s.bridge {
			meta = deleteMembers(meta, envelopeKeys...)
		}
		if m, _, _ := spans(meta); len(m) == 0 {
			params = deleteMembers(params, "_meta")
		} else {
			params = setMember(params, "_meta", meta)
		}
		body = setMember(body, "params", params)
	}
	return append(body, '\n')
}

// abandon forgets a request whose client has gone: its response is dropped
// when it comes, and the server told it is cancelled once the request has
// been written (sending delivers that; nil when it was).
func (s *session) abandon(st *stream, sending <-chan error, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st.gone = true
	if st.final {
		return
	}
	if s.waiters[st.key] == st {
		delete(s.waiters, st.key)
	}
	s.unlistLocked(st)
	s.room.Broadcast()
	s.cancelLocked(st, sending, why)
}

// timeout answers a request whose server stayed silent too long with an
// error and cancels it.
func (s *session) timeout(st *stream) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st.final {
		return
	}
	s.c.r.Logger.Warn("selfheal proxy: a request got nothing from the MCP server for too long; it is cancelled", "method", st.method, "silence", s.c.silent)
	s.answerLocked(st, st.key, append(wire.ErrorResponse(st.clientID, codeTimeout,
		fmt.Sprintf("Request timed out: the MCP server sent nothing for this request in %v; it is cancelled", s.c.silent)), '\n'))
	s.room.Broadcast()
	s.cancelLocked(st, nil, "timed out")
}

// cancelLocked tells the server, once, that st's request is cancelled,
// after sending (when not nil) has delivered. s.mu is held.
func (s *session) cancelLocked(st *stream, sending <-chan error, why string) {
	if st.cancelled {
		return
	}
	st.cancelled = true
	reason, _ := json.Marshal(why) // a string always encodes
	line := []byte(`{"jsonrpc":"2.0","method":"` + methodCancelled + `","params":{"requestId":` + strconv.Quote(st.key[1:]) + `,"reason":` + string(reason) + "}}\n")
	go func() {
		if sending != nil && <-sending != nil {
			return // not written: nothing to cancel
		}
		_ = s.send(line) // fails only when the process ends
	}()
}

// cancelled passes a client's notifications/cancelled to the process
// serving the one request under way with that id from a client with the
// same Authorization, under the proxy's id. With several matches it is
// dropped: a client cannot cancel what may be another's.
func (c *Server) cancelled(r *http.Request, m posted) {
	params := member(m.line, "params")
	key, ok := wire.IDKey(member(params, "requestId"))
	if !ok {
		return
	}
	auth := r.Header.Get("Authorization")
	c.mu.Lock()
	var procs []*session
	for _, ps := range c.pool {
		procs = append(procs, ps...)
	}
	c.mu.Unlock()
	var found *stream
	var at *session
	n := 0
	for _, p := range procs {
		p.mu.Lock()
		for _, st := range p.waiters {
			if k, _ := wire.IDKey(st.clientID); k == key && st.auth == auth && !st.cancelled {
				found, at = st, p
				n++
			}
		}
		p.mu.Unlock()
	}
	if n != 1 {
		c.r.Logger.Debug("selfheal proxy: a cancellation names no one request under way; it is dropped", "matches", n)
		return
	}
	at.mu.Lock()
	if found.final || found.cancelled || at.waiters[found.key] != found {
		at.mu.Unlock()
		return
	}
	found.cancelled = true
	line := setMember(bytes.TrimRight(m.line, "\r\n"), "params", setMember(params, "requestId", []byte(strconv.Quote(found.key[1:]))))
	if at.bridge {
		if meta := member(member(line, "params"), "_meta"); meta != nil {
			line = setMember(line, "params", setMember(member(line, "params"), "_meta", deleteMembers(meta, envelopeKeys...)))
		}
	}
	at.mu.Unlock()
	// Written before the POST is answered, so that what the client sends
	// next comes after it; bounded as a request is.
	t := time.NewTimer(c.silent)
	defer t.Stop()
	select {
	case <-at.sendAsync(append(line, '\n')):
	case <-t.C:
	case <-r.Context().Done():
	}
}

// routePooled routes a pooled process's message: a response to the
// proxy's own request or, under the client's id, to the client's (a
// bridge's completed); progress to its token's stream, a subscription's
// notification to its stream, another to the one request under way if it
// has a stream. A request of the server is answered by the proxy (ping with
// {}, else -32601): a stateless client cannot be asked anything. The rest
// is dropped.
func (s *session) routePooled(line []byte, m *wire.Message) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case m.IsResponse():
		key, _ := wire.IDKey(m.ID)
		if answer := s.own[key]; answer != nil {
			delete(s.own, key)
			answer <- line
			return
		}
		st := s.waiters[key]
		if st == nil {
			s.c.r.Logger.Debug("selfheal proxy: a response is dropped: its client has gone")
			return
		}
		body := setMember(bytes.TrimRight(line, "\r\n"), "id", st.clientID)
		res := member(body, "result")
		if meta := member(res, "_meta"); st.listen && hasMember(meta, metaSubscriptionID) {
			res = setMember(res, "_meta", setMember(meta, metaSubscriptionID, st.clientID))
			body = setMember(body, "result", res)
		}
		if s.bridge && isObject(res) {
			body = setMember(body, "result", completeResult(res, st.method))
		}
		if st.method == "tools/list" && isObject(res) {
			s.c.params.learn(res)
		}
		if s.roomFor(st) && s.waiters[key] == st {
			s.answerLocked(st, key, append(body, '\n'))
		}
	case m.HasMethod && m.ID != nil:
		var reply []byte
		if m.Method == methodPing {
			reply = []byte(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":{}}`)
		} else {
			s.c.r.Logger.Debug("selfheal proxy: the MCP server asked a stateless client something; the proxy answers with an error", "method", m.Method)
			reply = wire.ErrorResponse(m.ID, codeMethodNotFound, "Method not found: "+m.Method+": the client speaks protocol revision "+wire.Stateless+" through selfheal proxy, without a session to carry the server's requests")
		}
		s.sendAsync(append(reply, '\n'))
	default:
		if m.Method == notifyToolsChanged {
			s.c.params.forget()
		}
		st, out := s.notifyTargetLocked(m, line)
		if st != nil && s.roomFor(st) {
			st.queue = append(st.queue, out)
			st.signal()
		}
	}
}

// roomFor waits while st's queue is full; false when st wants no more
// meanwhile. s.mu is held.
func (s *session) roomFor(st *stream) bool {
	for !s.ended && !st.final && !st.gone {
		if !st.sse || !st.pumping || len(st.queue) < s.c.queue {
			return true
		}
		s.room.Wait()
	}
	return false
}

// notifyTargetLocked returns the stream a pooled process's notification
// goes to (nil for none) and the notification as its client gets it.
// s.mu is held.
func (s *session) notifyTargetLocked(m *wire.Message, line []byte) (*stream, []byte) {
	body := bytes.TrimRight(line, "\r\n")
	withParams := func(params []byte) []byte {
		return append(setMember(body, "params", params), '\n')
	}
	if m.Method == methodProgress {
		key, ok := wire.IDKey(member(m.Params, "progressToken"))
		if st := s.progress[key]; ok && st != nil && st.sse {
			return st, withParams(setMember(m.Params, "progressToken", st.clientTok))
		}
		return nil, nil
	}
	meta := member(m.Params, "_meta")
	if sub := member(meta, metaSubscriptionID); sub != nil {
		key, ok := wire.IDKey(sub)
		if st := s.waiters[key]; ok && st != nil && st.sse {
			return st, withParams(setMember(m.Params, "_meta", setMember(meta, metaSubscriptionID, st.clientID)))
		}
		return nil, nil
	}
	var only *stream
	n := 0
	for _, st := range s.waiters {
		if !st.listen {
			only = st
			n++
		}
	}
	if n == 1 && only.sse {
		return only, line
	}
	return nil, nil
}

// The edits made to the messages relayed for clients of revision
// 2026-07-28 (an id or a token replaced, _meta keys taken out, members
// added) keep every other byte as written.

// span is where a member of a JSON object lies: from its name's opening
// quote to the end of its value.
type span struct {
	start, value, end int
	name              string
}

// spans returns the members of the JSON object obj and the index of its
// closing brace; ok is false when obj is not one object.
func spans(obj []byte) (members []span, closing int, ok bool) {
	from := wire.SkipSpace(obj, 0) + 1 // past the brace, then past each comma
	ok = wire.Members(obj, func(key, value []byte) {
		v := cap(obj) - cap(value) // value is a slice of obj: its offset
		members = append(members, span{start: wire.SkipSpace(obj, from), value: v, end: v + len(value), name: string(key)})
		from = wire.SkipSpace(obj, v+len(value)) + 1
	})
	if !ok {
		return nil, 0, false
	}
	return members, bytes.LastIndexByte(obj, '}'), true
}

// member returns the value of obj's last member name as written, or nil.
func member(obj []byte, name string) []byte {
	members, _, ok := spans(obj)
	if !ok {
		return nil
	}
	var value []byte
	for _, m := range members {
		if m.name == name {
			value = obj[m.value:m.end]
		}
	}
	return value
}

func hasMember(obj []byte, name string) bool {
	return member(obj, name) != nil
}

// setMember returns a copy of obj with its member name set to value (raw
// JSON), in place or added last; obj unchanged when not an object.
func setMember(obj []byte, name string, value []byte) []byte {
	members, closing, ok := spans(obj)
	if !ok {
		return obj
	}
	out := make([]byte, 0, len(obj)+len(name)+len(value)+4)
	from, found := 0, false
	for _, m := range members {
		if m.name == name {
			out = append(out, obj[from:m.value]...)
			out = append(out, value...)
			from, found = m.end, true
		}
	}
	if found {
		return append(out, obj[from:]...)
	}
	out = append(out, obj[:closing]...)
	if len(members) > 0 {
		out = append(out, ',')
	}
	out = append(append(append(out, '"'), name...), '"', ':') // the names added are plain ASCII
	out = append(out, value...)
	return append(out, obj[closing:]...)
}

// deleteMembers returns a copy of obj without the members names, or obj
// when it has none of them.
func deleteMembers(obj []byte, names ...string) []byte {
	members, _, ok := spans(obj)
	if !ok {
		return obj
	}
	var kept []span
	for _, m := range members {
		if !slices.Contains(names, m.name) {
			kept = append(kept, m)
		}
	}
	if len(kept) == len(members) {
		return obj
	}
	out := make([]byte, 0, len(obj))
	out = append(out, '{')
	for i, m := range kept {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, obj[m.start:m.end]...)
	}
	return append(out, '}')
}

func isObject(raw []byte) bool {
	_, _, ok := spans(raw)
	return ok
}

// elements calls f with each element of a JSON array, in order.
func elements(arr []byte, f func(value []byte)) {
	i := wire.SkipSpace(arr, 0)
	if i == len(arr) || arr[i] != '[' {
		return
	}
	i = wire.SkipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return
	}
	for i < len(arr) {
		end := wire.SkipValue(arr, i)
		if end < 0 {
			return
		}
		f(arr[i:end])
		i = wire.SkipSpace(arr, end)
		if i == len(arr) || arr[i] != ',' {
			return
		}
		i = wire.SkipSpace(arr, i+1)
	}
}

package proxy

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

type httpSession struct {
	tools toolSet

	mu     sync.Mutex
	used   time.Time // the last request that needed it
	locale string    // declared in the initialize request's _meta
	// listing is closed when the proxy's listing under way ends.
	listing chan struct{}
}

// publicKey keys the tools a server listed as "public" (cacheScope): the
// same for every client.
const publicKey = "p"

// scopeKey keys what the proxy learns for a stateless request: the hash of
// its Authorization, so that no list is shared between authorizations; ""
// without one (shared only when the server says it is public).
func scopeKey(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return ""
	}
	return "a" + hashLimitBy(auth)
}

// toolsFor returns the session whose tools judge x's call, listed first
// when this replica does not know them. A stateless request without an
// authorization is judged by the public tools, or by a listing of its own,
// kept for the others only when the server says it is public.
func (h *httpProxy) toolsFor(r *http.Request, x *exchange, tool string) *httpSession {
	if x.key != "" || x.revision == "" {
		sess := h.session(x.key)
		h.listIfNeeded(r, sess, x.revision, tool)
		return sess
	}
	if pub := h.existing(publicKey); pub != nil {
		h.listIfNeeded(r, pub, x.revision, tool)
		if pub.tools.scopeOf() == "public" {
			return pub
		}
		h.drop(publicKey, pub) // no longer public: this request's only
		return pub
	}
	own := &httpSession{}
	h.listIfNeeded(r, own, x.revision, tool)
	if own.tools.scopeOf() == "public" {
		h.mu.Lock()
		h.sessions[publicKey] = own
		h.mu.Unlock()
	}
	return own
}

// sessionKey keys a request's session: its Mcp-Session-Id, or without
// sessions the hash of its Authorization, so that callers who may see
// different tools are not mixed.
func sessionKey(r *http.Request) string {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		return idKey(id)
	}
	return "a" + hashLimitBy(r.Header.Get("Authorization"))
}

// idKey keys the session of id by the id's hash, so that an entry has one
// size whatever ids clients invent: with maxHTTPSessions entries of a few
// hundred bytes (368 measured by TestInventedSessionIDs), invented ids
// hold about 4 MB at most.
func idKey(id string) string { return "s" + hashLimitBy(id) }

// maxSessionID bounds an Mcp-Session-Id: MCP's are a UUID, a JWT or a hash
// (36 to a few hundred bytes); 1 KiB leaves room for a JWT's claims.
const maxSessionID = 1024

// badSessionID reports whether an Mcp-Session-Id cannot be a server's
// (visible ASCII, at most maxSessionID bytes): answered 400 before the
// server, as the server would answer an id it never gave.
func badSessionID(r *http.Request) bool {
	ids := r.Header.Values("Mcp-Session-Id")
	if len(ids) != 1 {
		return len(ids) > 1
	}
	return len(ids[0]) > maxSessionID || strings.ContainsFunc(ids[0], func(c rune) bool { return c < 0x21 || c > 0x7e })
}

// session returns the session of key, made on first use. At
// maxHTTPSessions, those idle for sessionIdle go first, then the least
// recently used half.
func (h *httpProxy) session(key string) *httpSession {
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	sess := h.sessions[key]
	if sess == nil {
		if len(h.sessions) >= maxHTTPSessions {
			h.forget(now)
		}
		sess = &httpSession{}
		h.sessions[key] = sess
	}
	sess.mu.Lock()
	sess.used = now
	sess.mu.Unlock()
	return sess
}

func (h *httpProxy) existing(key string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[key]
}

func (h *httpProxy) drop(key string, sess *httpSession) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.sessions[key] == sess {
		delete(h.sessions, key)
	}
}

// forget drops sessions to make room; h.mu is held.
func (h *httpProxy) forget(now time.Time) {
	type use struct {
		key  string
		used time.Time
	}
	uses := make([]use, 0, len(h.sessions))
	for k, s := range h.sessions {
		s.mu.Lock()
		used := s.used
		s.mu.Unlock()
		if now.Sub(used) > sessionIdle {
			delete(h.sessions, k)
			continue
		}
		uses = append(uses, use{k, used})
	}
	if len(h.sessions) < maxHTTPSessions {
		return
	}
	slices.SortFunc(uses, func(a, b use) int { return a.used.Compare(b.used) })
	for _, u := range uses[:len(uses)/2] {
		delete(h.sessions, u.key)
	}
}

// listIfNeeded lists the session's tools when this replica has no listing,
// or an old (past its ttlMs, at least minTTL, or listTTL without one) or
// stale one, and waits for it; concurrent calls wait for the same one. A
// call of a tool in a listing old by its ttlMs does not wait: it is judged
// by it while the tools are listed again behind it, as over stdio.
func (h *httpProxy) listIfNeeded(r *http.Request, sess *httpSession, revision, tool string) {
	_, need := sess.tools.findAged(tool, listTTL)
	if need == ready || sess.tools.backingOff() {
		return
	}
	sess.mu.Lock()
	wait := sess.listing
	if wait == nil {
		sess.listing = make(chan struct{})
	}
	sess.mu.Unlock()
	if need == revalidate {
		if wait == nil {
			// Its own request: this one may end first.
			go h.runListing(r.Clone(context.WithoutCancel(r.Context())), sess, revision)
		}
		return
	}
	if wait != nil {
		select {
		case <-wait:
		case <-r.Context().Done():
		}
		return
	}
	h.runListing(r, sess, revision)
}

// runListing lists the session's tools within listTimeout and ends the
// listing listIfNeeded began.
func (h *httpProxy) runListing(r *http.Request, sess *httpSession, revision string) {
	// The calls waiting need the listing even when this client goes.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), listTimeout)
	err := h.list(ctx, r, sess, revision)
	cancel()
	sess.tools.ended(err != nil)
	sess.mu.Lock()
	close(sess.listing)
	sess.listing = nil
	sess.mu.Unlock()
	if err != nil {
		h.logUpstream("selfheal proxy: cannot list the tools of a session; its calls pass unchecked for now", err)
	}
}

// list lists and learns every page of the session's tools with r's headers
// (session, protocol version, credentials); in a stateless revision each
// request carries the proxy's _meta and headers saying tools/list.
func (h *httpProxy) list(ctx context.Context, r *http.Request, sess *httpSession, revision string) error {
	return wire.ListPages(func(cursor string) (string, error) {
		id := fmt.Sprintf(`"selfheal-proxy/tools-list/%d"`, h.listSeq.Add(1))
		result, err := h.roundTrip(ctx, r, []byte(id), string(wire.ListRequest(id, cursor, revision)), revision)
		if err != nil {
			return "", err
		}
		next, ok := sess.tools.learn(h.p, result, cursor == "")
		if !ok {
			return "", errors.New("the tools/list result cannot be read")
		}
		return next, nil
	})
}

// roundTrip POSTs the proxy's own request body (of id) upstream with r's
// headers and returns its response's result, from JSON or a stream.
func (h *httpProxy) roundTrip(ctx context.Context, r *http.Request, id []byte, body, revision string) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, h.upstream.String(), strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header = r.Header.Clone()
	for _, k := range []string{"Content-Length", "Accept-Encoding", "Last-Event-Id", "Connection", "Keep-Alive",
		"Proxy-Connection", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"} {
		req.Header.Del(k)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if revision != "" {
		// The call's method headers would contradict the body.
		req.Header.Set("Mcp-Protocol-Version", revision)
		req.Header.Set("Mcp-Method", methodToolsList)
		req.Header.Del("Mcp-Name")
	}
	resp, err := h.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("tools/list: HTTP %s", resp.Status)
	}
	want, _ := wire.IDKey(id)
	var found *wire.Message
	take := func(data []byte) {
		if m, ok := wire.Decode(data); ok && m.IsResponse() {
			if k, _ := wire.IDKey(m.ID); k == want {
				found = m
			}
		}
	}
	body2 := io.LimitReader(resp.Body, maxListBody)
	if wire.MediaType(resp.Header.Get("Content-Type")) == "text/event-stream" {
		sc := eventstream.NewScanner(func(ev *eventstream.Event) {
			if found == nil && ev.IsMessage() {
				take(bytes.Clone(ev.Data))
			}
		})
		buf := make([]byte, 32<<10)
		for found == nil {
			n, err := body2.Read(buf)
			_, _ = sc.Write(buf[:n])
			if err != nil {
				break
			}
		}
	} else {
		data, err := io.ReadAll(body2)
		if err != nil {
			return nil, err
		}
		take(data)
	}
	switch {
	case found == nil:
		return nil, errors.New("no response to tools/list")
	case found.Result == nil:
		return nil, fmt.Errorf("tools/list: error %s", found.Error)
	}
	return found.Result, nil
}

// listScope is the cacheScope of a tools/list result, "" for none.
func listScope(result []byte) string {
	scope := ""
	wire.Members(result, func(k, v []byte) {
		if string(k) == "cacheScope" {
			scope = wire.Str(v)
		}
	})
	return scope
}

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

// httpSession is what the proxy knows of one session.
type httpSession struct {
	tools toolSet

	mu     sync.Mutex
	used   time.Time // the last request that needed it
	locale string    // declared in the initialize request's _meta
	// listing is closed when the proxy's listing under way ends; nil when
	// none is.
	listing chan struct{}
}

// publicKey is the key of the tools a server listed as "public"
// (cacheScope, MCP 2026-07-28): the same for every client.
const publicKey = "p"

// scopeKey is the key of what the proxy learns for a request of a
// stateless revision, which has no session: the hash of its Authorization
// header, so that a list is never shared between authorizations; "" for a
// request without one, whose listing the proxy shares with no other
// client unless the server said it is public.
func scopeKey(r *http.Request) string {
	auth := r.Header.Get("Authorization")
	if auth == "" {
		return ""
	}
	return "a" + hashLimitBy(auth)
}

// toolsFor returns the session whose tools judge the call of x, after
// listing them when this replica does not know them (see listIfNeeded).
// A request of a stateless revision without an authorization is judged by
// the tools the server listed as public, or else by a listing of its own,
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

// sessionKey is the key of the session a request belongs to: its
// Mcp-Session-Id, or for a server without sessions the hash of its
// Authorization header, so that callers with different credentials, who
// may see different tools, are not mixed.
func sessionKey(r *http.Request) string {
	if id := r.Header.Get("Mcp-Session-Id"); id != "" {
		return idKey(id)
	}
	return "a" + hashLimitBy(r.Header.Get("Authorization"))
}

// idKey is the key of the session of id: the hash of the id, so that an
// entry of h.sessions has one size (its key is 65 bytes) whatever ids
// clients invent. With maxHTTPSessions entries of at most a few hundred
// bytes each (the key, the map's slot, an httpSession without tools: a
// client can invent ids, not the tools the server lists for them; 368
// bytes measured by TestInventedSessionIDs), the sessions of invented ids
// hold about 4 MB at most.
func idKey(id string) string { return "s" + hashLimitBy(id) }

// maxSessionID bounds the length of an Mcp-Session-Id the proxy accepts.
// MCP's ids are a UUID, a JWT or a hash: 36 to a few hundred bytes; 1 KiB
// leaves room for a JWT with a few claims and keeps what a request's id
// costs (its hash) small. The proxy keeps the hash, never the id.
const maxSessionID = 1024

// badSessionID reports whether an Mcp-Session-Id cannot be one a server
// gave: MCP's ids are visible ASCII (0x21 to 0x7E), and the proxy's are at
// most maxSessionID bytes. Such a request is answered 400 before anything
// reaches the server, as the server would answer an id it never gave.
func badSessionID(r *http.Request) bool {
	ids := r.Header.Values("Mcp-Session-Id")
	if len(ids) > 1 {
		return true
	}
	if len(ids) == 0 {
		return false
	}
	id := ids[0]
	if len(id) > maxSessionID {
		return true
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return true
		}
	}
	return false
}

// session returns the session of key, made on its first use. When there
// are maxHTTPSessions, those unused for sessionIdle are forgotten first,
// then the least recently used half.
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

// existing returns the session of key, nil when there is none.
func (h *httpProxy) existing(key string) *httpSession {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.sessions[key]
}

// drop forgets the session of key if it is still sess.
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

// listIfNeeded lists the session's tools itself when this replica has no
// listing of them, or an old or stale one, and waits for the listing (one
// at a time per session: concurrent calls wait for the same one). A
// listing is old after its ttlMs (MCP 2026-07-28; at least minTTL), or
// after listTTL when it gave none. A call of tool, when tool is in a
// listing old by its ttlMs, does not wait: it is judged by that listing
// while the tools are listed again behind it, as over stdio (see
// toolSet.find). revision is the stateless revision of the request, ""
// for an earlier one.
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
			// Its own request: this one may end before the listing does.
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

// runListing lists the session's tools (see list), for at most
// listTimeout, and ends the listing under way that listIfNeeded began.
func (h *httpProxy) runListing(r *http.Request, sess *httpSession, revision string) {
	// The listing outlives the call that started it: the calls waiting
	// for it need it even when this client goes.
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

// list lists the session's tools with the headers of r (its session,
// protocol version and credentials), every page, and learns them. In a
// stateless revision, each request carries the revision and the proxy's
// client info in its _meta, and the headers say tools/list.
func (h *httpProxy) list(ctx context.Context, r *http.Request, sess *httpSession, revision string) error {
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		id := fmt.Sprintf(`"selfheal-proxy/tools-list/%d"`, h.listSeq.Add(1))
		result, err := h.roundTrip(ctx, r, []byte(id), string(listRequest(id, cursor, revision)), revision)
		if err != nil {
			return err
		}
		next, ok := sess.tools.learn(h.p, result, cursor == "")
		if !ok {
			return errors.New("the tools/list result cannot be read")
		}
		if next == "" {
			return nil
		}
		cursor = next
	}
	return fmt.Errorf("the tools/list results have more than %d pages", maxListPages)
}

// roundTrip POSTs the proxy's own request body (of id) to the upstream
// server with the headers of r, and returns the result of its response,
// from a JSON body or from the event of a stream that carries it.
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
		// The call's method headers would contradict the body, which a
		// stateless server refuses.
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

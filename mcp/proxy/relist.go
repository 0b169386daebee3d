package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// ownPrefix starts the ids of the proxy's own requests; a session adds 16
// random bytes, so that no client's id can be one of them.
const ownPrefix = relay.OwnPrefix

// awaitListing waits, at most WithListWait, until the tools are known for
// a call of name that needs them first, and returns the tool (nil when not
// listed). stateless: the call's revision wants _meta on requests. A
// client's listing under way is waited for, else the proxy lists itself.
// ok is false when no listing ended in time or the last failed within
// listRetry: the call passes unchecked, and the log says so. It waits on
// the client's reader, so that the messages behind it keep their order.
func (s *session) awaitListing(name string, stateless bool) (t *tool, ok bool) {
	wait := s.p.cfg.listWait
	var timeout <-chan time.Time
	if wait > 0 {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		timeout = timer.C
	}
	for {
		t, need := s.tools.find(name)
		if need != listFirst {
			return t, true
		}
		s.mu.Lock()
		if stateless {
			s.stateless = true
		}
		if s.noTools {
			s.mu.Unlock()
			return nil, true // nothing to list: the server has no tools
		}
		if s.listGaveUp || s.tools.backingOff() {
			s.mu.Unlock()
			return nil, false
		}
		if s.learnt == nil {
			s.learnt = make(chan struct{})
		}
		learnt := s.learnt
		start := !s.relisting && !s.clientListingLocked()
		s.mu.Unlock()
		if start {
			s.relist("")
		}
		if wait <= 0 {
			return nil, false // WithListWait: calls do not wait
		}
		s.flushServer() // what the client sent before the call goes first
		select {
		case <-learnt:
		case <-timeout:
			// Not waited for again until a listing comes back.
			s.mu.Lock()
			s.listGaveUp = true
			s.mu.Unlock()
			s.p.cfg.Logger.Warn("selfheal proxy: the tools were not listed in time; calls pass unchecked until a listing comes back", "tool", name, "wait", wait)
			return nil, false
		case <-s.ctx.Done():
			return nil, false
		}
	}
}

// clientListingLocked reports whether a client's tools/list for a first
// page awaits its result. s.mu is held.
func (s *session) clientListingLocked() bool {
	for _, cursor := range s.lists {
		if !cursor {
			return true
		}
	}
	return false
}

// learned wakes the calls waiting for the tools: a page was learned, or a
// listing failed.
func (s *session) learned() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listGaveUp = false
	if s.learnt != nil {
		close(s.learnt)
		s.learnt = nil
	}
}

// revalidate lists the tools again in the background, unless a listing is
// under way or the last failed within listRetry.
func (s *session) revalidate() {
	s.mu.Lock()
	skip := s.relisting || s.tools.backingOff()
	s.mu.Unlock()
	if !skip {
		s.relist("")
	}
}

// relist sends the proxy's own tools/list request for the page after
// cursor ("" for the first): the tools changed, or a call names a tool not
// learned. Its response never reaches the client. One listing runs at a
// time; a change announced meanwhile starts another once it ends.
func (s *session) relist(cursor string) {
	s.mu.Lock()
	if cursor == "" {
		if s.relisting {
			s.relistAgain = true
			s.mu.Unlock()
			return
		}
		s.relisting = true
		s.relistPages = 0
	}
	s.relistPages++
	if s.relistPages > maxListPages {
		s.endListingLocked(true)
		s.mu.Unlock()
		s.learned()
		s.p.cfg.Logger.Warn("selfheal proxy: the server's tools/list has too many pages; its tools are learned again when the client lists them", "pages", maxListPages)
		return
	}
	req := s.listRequestLocked(cursor)
	s.mu.Unlock()
	// Not on the server's reader: a server blocked writing to the proxy
	// would never read this. Flushed at once: the client's reader may be
	// waiting for the answer with lines of its own held in the batch.
	go s.sendServer(req)
}

// listRequestLocked returns the proxy's own tools/list request for the page
// after cursor and notes its id. s.mu is held.
func (s *session) listRequestLocked(cursor string) []byte {
	if s.nonce == "" {
		var b [16]byte
		_, _ = rand.Read(b[:]) // never fails (crypto/rand)
		s.nonce = hex.EncodeToString(b[:])
	}
	s.ownSeq++
	id := strconv.Quote(ownPrefix + s.nonce + "/tools-list/" + strconv.FormatUint(s.ownSeq, 10))
	key, _ := wire.IDKey([]byte(id))
	if s.own == nil {
		s.own = map[string]bool{}
	}
	s.own[key] = cursor == ""

	revision := ""
	if s.stateless {
		// A stateless server refuses a request without its _meta.
		revision = wire.Stateless
	}
	return append(listRequest(id, cursor, revision), '\n')
}

// listRequest is the proxy's own tools/list request of id (a JSON string)
// for the page after cursor, in revision ("" for 2025; else with the
// proxy's _meta), without a newline: one for every transport.
func listRequest(id, cursor, revision string) []byte {
	req := []byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`)
	if cursor == "" && revision == "" {
		return append(req, '}')
	}
	req = append(req, `,"params":{`...)
	if cursor != "" {
		c, _ := json.Marshal(cursor) // a string always encodes
		req = append(append(req, `"cursor":`...), c...)
	}
	if revision != "" {
		if cursor != "" {
			req = append(req, ',')
		}
		req = append(append(req, `"_meta":`...), wire.OwnMeta(revision)...)
	}
	return append(req, "}}"...)
}

// relisted reads the response to the proxy's own tools/list: the tools
// are learned, the next page asked for, and a listing that ends with
// changes announced meanwhile starts again. A failed listing leaves the
// tools as they were: calls that need them pass unchecked for listRetry.
func (s *session) relisted(m *wire.Message, first bool) {
	next, ok := "", false
	if m.Result != nil {
		next, ok = s.tools.learn(s.p, m.Result, first)
	}
	if !ok {
		s.p.cfg.Logger.Debug("selfheal proxy: the proxy's own tools/list failed; calls that need the tools pass unchecked until the client lists them")
		s.mu.Lock()
		s.endListingLocked(true)
		s.mu.Unlock()
		s.learned()
		return
	}
	if next != "" {
		s.relist(next)
		return
	}
	s.mu.Lock()
	if !s.relistAgain {
		s.endListingLocked(false)
		s.mu.Unlock()
		s.learned()
		return
	}
	// Changed again meanwhile: the listing starts over.
	s.relistAgain, s.relistPages = false, 1
	req := s.listRequestLocked("")
	s.mu.Unlock()
	s.learned()
	go s.sendServer(req)
}

// endListingLocked ends the proxy's listing under way, failed or not.
// s.mu is held.
func (s *session) endListingLocked(failed bool) {
	s.relisting, s.relistAgain = false, false
	s.tools.ended(failed)
}

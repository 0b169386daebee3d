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

// ownPrefix starts the ids of the proxy's own requests over stdio. A
// session adds 16 random bytes to it (see relist), so that no id a client
// chooses can be one of them.
const ownPrefix = relay.OwnPrefix

// awaitListing waits until the tools are known for a call of the tool
// name that needs them first (see toolSet.find), for at most WithListWait,
// and returns the tool (nil when the server does not list it). stateless
// says that the call speaks a stateless revision, whose requests carry
// their _meta. When a listing of the client's is under way, the call waits
// for it; otherwise the proxy lists the tools itself. ok is false when no
// listing ended in time, or the last one failed less than listRetry ago:
// the call then passes unchecked, and the log says so.
//
// The call waits on the goroutine that reads the client, so that the
// messages behind it keep their order; the server's messages, its answer
// to the listing among them, go on passing meanwhile.
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
			// A server that has not listed in that time is not waited for
			// again until a listing comes back.
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

// clientListingLocked reports whether a listing of the client's is under
// way: a tools/list request for a first page awaits its result. s.mu is
// held.
func (s *session) clientListingLocked() bool {
	for _, cursor := range s.lists {
		if !cursor {
			return true
		}
	}
	return false
}

// learned wakes the calls waiting for the tools (see awaitListing): a page
// of a listing was learned, or a listing failed.
func (s *session) learned() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listGaveUp = false
	if s.learnt != nil {
		close(s.learnt)
		s.learnt = nil
	}
}

// revalidate lists the tools again, in the background, when their listing's
// ttlMs has passed (see toolSet.find), unless a listing is under way or
// the last one failed less than listRetry ago.
func (s *session) revalidate() {
	s.mu.Lock()
	skip := s.relisting || s.tools.backingOff()
	s.mu.Unlock()
	if !skip {
		s.relist("")
	}
}

// relist sends the proxy's own tools/list request to the server: the first
// page when cursor is "", else the page after cursor. The server announced
// that its tools changed (notifications/tools/list_changed), or a call
// names a tool the proxy has not learned (see awaitListing): the calls
// that need the tools wait for the listing, bounded by WithListWait. The response never
// reaches the client (see serverMessage). One listing runs at a time; a
// change announced meanwhile starts another once it ends.
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
	// Not on the goroutine that reads the server: a server blocked writing
	// to the proxy would never read this write, and neither would go on.
	// Flushed at once: the client's reader may be waiting for the answer
	// (see awaitListing), with lines of its own held in the batch.
	go s.sendServer(req)
}

// listRequestLocked returns the proxy's own tools/list request for the
// page after cursor ("" for the first), and notes its id. s.mu is held.
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
		// A stateless server reads the revision of each request from its
		// _meta: without it, it refuses the listing.
		revision = wire.Stateless
	}
	return append(listRequest(id, cursor, revision), '\n')
}

// listRequest is the proxy's own tools/list request of id (a JSON
// string), for the page after cursor ("" for the first), in revision (""
// for a 2025 one; else its _meta names the revision and the proxy), without
// a newline: one for every transport.
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

// relisted reads the response to the proxy's own tools/list request: the
// tools are learned, the next page asked for, and a listing that ends with
// changes announced meanwhile starts again. first says that the request
// asked for the first page. A failed listing leaves the tools as they
// were (stale, or not known): the calls that need them pass unchecked for
// listRetry, and the tools are learned when the client lists them.
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
	// Changed again meanwhile: the listing starts over, still under way
	// for the calls waiting for it.
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

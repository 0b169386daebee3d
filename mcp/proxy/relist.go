package proxy

import (
	"errors"
	"strconv"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

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
			s.relist()
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
		s.relist()
	}
}

// relist starts the proxy's own listing of the tools: they changed, or a
// call names a tool not learned. One listing runs at a time; a change
// announced meanwhile starts it over once it ends.
func (s *session) relist() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.relisting {
		s.relistAgain = true
		return
	}
	s.relisting = true
	go s.listTools()
}

// listTools runs the proxy's listings until one ends with no change
// announced meanwhile. Not on the server's reader: a server blocked writing
// to the proxy would never read the requests. A failed listing leaves the
// tools as they were: calls that need them pass unchecked for listRetry.
func (s *session) listTools() {
	for {
		err := wire.ListPages(s.listPage)
		s.mu.Lock()
		again := err == nil && s.relistAgain
		s.relistAgain = false
		if !again {
			s.relisting = false
			s.tools.ended(err != nil)
		}
		s.mu.Unlock()
		s.learned()
		switch {
		case again:
			continue
		case errors.Is(err, wire.ErrTooManyPages):
			s.p.cfg.Logger.Warn("selfheal proxy: the server's tools/list has too many pages; its tools are learned again when the client lists them", "pages", wire.MaxListPages)
		case err != nil:
			s.p.cfg.Logger.Debug("selfheal proxy: the proxy's own tools/list failed; calls that need the tools pass unchecked until the client lists them")
		}
		return
	}
}

// ownList is one of the proxy's own tools/list requests awaiting its
// response, which the server's reader learns (in order with the server's
// other messages) and never passes to the client.
type ownList struct {
	first bool
	done  chan ownPage
}

// ownPage is what the response to an ownList said: the next cursor, and
// whether it could be learned.
type ownPage struct {
	next string
	ok   bool
}

// listPage asks the server for the page after cursor and waits for it to
// be learned.
func (s *session) listPage(cursor string) (string, error) {
	s.mu.Lock()
	if s.nonce == "" {
		s.nonce = wire.Nonce()
	}
	s.ownSeq++
	id := strconv.Quote(relay.OwnPrefix + s.nonce + "/tools-list/" + strconv.FormatUint(s.ownSeq, 10))
	key, _ := wire.IDKey([]byte(id))
	if s.own == nil {
		s.own = map[string]ownList{}
	}
	done := make(chan ownPage, 1)
	s.own[key] = ownList{first: cursor == "", done: done}
	revision := ""
	if s.stateless {
		revision = wire.Stateless // a stateless server refuses a request without its _meta
	}
	s.mu.Unlock()
	// Flushed at once: the client's reader may be waiting for the answer
	// with lines of its own held in the batch.
	s.sendServer(append(wire.ListRequest(id, cursor, revision), '\n'))
	select {
	case p := <-done:
		if !p.ok {
			return "", errors.New("the tools/list result cannot be read")
		}
		return p.next, nil
	case <-s.ctx.Done():
		return "", s.ctx.Err()
	}
}

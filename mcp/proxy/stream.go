package proxy

import (
	"fmt"
	"io"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// head is what a long line's first bytes show: the members whose values end
// within them, read as wire.Members does.
type head struct {
	object    bool   // the line starts as a JSON object
	id        []byte // as written; nil when not seen whole
	method    []byte // as written; nil when not seen whole
	hasMethod bool   // a method member has begun
	response  bool   // a result or error member has begun
}

func readHead(data []byte) head {
	var h head
	i := wire.SkipSpace(data, 0)
	if i == len(data) || data[i] != '{' {
		return h
	}
	h.object = true
	for i = wire.SkipSpace(data, i+1); i < len(data) && data[i] == '"'; {
		end := wire.SkipString(data, i)
		if end < 0 {
			return h
		}
		key := wire.MemberName(data[i:end])
		if i = wire.SkipSpace(data, end); i == len(data) || data[i] != ':' {
			return h
		}
		i = wire.SkipSpace(data, i+1)
		switch string(key) {
		case "method":
			h.hasMethod = true
		case "result", "error":
			h.response = true
		}
		// A value that reaches the end may go on past it (a number cut in two).
		if end = wire.SkipValue(data, i); end < 0 || end == len(data) {
			return h
		}
		switch string(key) {
		case "id":
			h.id = data[i:end]
		case "method":
			h.method = data[i:end]
		}
		if i = wire.SkipSpace(data, end); i == len(data) || data[i] != ',' {
			return h
		}
		i = wire.SkipSpace(data, i+1)
	}
	return h
}

// clientWhole reports whether a long client line must be read whole: a
// request the proxy reads, or one whose method is not known yet, unless it
// is a response.
func clientWhole(h head) bool {
	if !h.object {
		return false
	}
	if !h.hasMethod {
		return !h.response
	}
	switch wire.Str(h.method) {
	case methodToolsCall, methodToolsList, methodInitialize, methodCancelled:
		return true
	}
	return h.method == nil // cut: not known
}

// serverWhole reports whether a long server line must be read whole:
// list_changed, a response whose result the proxy reads, or one whose id
// is not in the head while the proxy awaits a response (the TypeScript SDK
// writes the id last).
func (s *session) serverWhole(h head) bool {
	if !h.object {
		return false
	}
	if h.hasMethod {
		return h.method == nil || wire.Str(h.method) == methodListChanged
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if h.id == nil {
		return h.response && len(s.lists)+len(s.own)+len(s.explain)+len(s.calls) > 0
	}
	key, ok := wire.IDKey(h.id)
	if !ok {
		return false
	}
	_, list := s.lists[key]
	_, own := s.own[key]
	_, explain := s.explain[key]
	return list || own || explain
}

// released frees the guard slot of the call a streamed response answers.
func (s *session) released(h head) {
	if !h.response {
		return
	}
	key, ok := wire.IDKey(h.id)
	if !ok {
		return
	}
	s.mu.Lock()
	release := s.calls[key]
	delete(s.calls, key)
	s.mu.Unlock()
	if release != nil {
		release()
	}
}

// stream passes the rest of a long line, from piece (its head) on, to
// write. write's error stops the writes but not the reading, so the next
// line starts where it should. cut: the line ended without its newline;
// readErr is the read's error other than io.EOF.
func stream(lr *wire.LineReader, piece []byte, write func(piece []byte) error) (cut bool, writeErr, readErr error) {
	for more := true; ; {
		if writeErr == nil {
			writeErr = write(piece) // before part, which reuses piece's memory
		}
		if !more {
			return piece[len(piece)-1] != '\n', writeErr, nil
		}
		var err error
		if piece, more, err = lr.Part(); err != nil {
			if err == io.EOF {
				err = nil
			}
			return true, writeErr, err
		}
	}
}

// streamClient passes a long server line to the client as it arrives, as
// one line: no other write comes between its pieces.
func (s *session) streamClient(lr *wire.LineReader, piece []byte) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	if err := s.flushClientLocked(); err != nil {
		return err
	}
	cut, writeErr, readErr := stream(lr, piece, func(piece []byte) error {
		if s.clientClosed.Load() {
			return nil
		}
		if _, err := s.toClient.Write(piece); err != nil {
			return fmt.Errorf("proxy: writing to the client: %w", err)
		}
		return nil
	})
	if cut {
		s.clientClosed.Store(true) // as in writeClient: an answer would join it
	}
	if writeErr != nil {
		return writeErr
	}
	if readErr != nil {
		return fmt.Errorf("proxy: reading from the server: %w", readErr)
	}
	return nil
}

// streamServer passes a long client line to the server as it arrives, as
// one line; a write failure is handled as in writeServer.
func (s *session) streamServer(lr *wire.LineReader, piece []byte) error {
	s.serverMu.Lock()
	defer s.serverMu.Unlock()
	s.flushServerLocked()
	cut, _, readErr := stream(lr, piece, func(piece []byte) error {
		if !s.serverClosed.Load() {
			_, err := s.toServer.Write(piece)
			s.serverFailed(err)
		}
		return nil
	})
	if cut && !s.serverClosed.Load() {
		// The client's last line, cut short: a queued call would join it,
		// so the server's input ends here.
		s.closeServerLocked()
	}
	if readErr != nil {
		return fmt.Errorf("proxy: reading from the client: %w", readErr)
	}
	return nil
}

package proxy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// Serve relays newline-delimited JSON-RPC messages (the stdio framing of
// MCP) between a client and a server: what client sends goes to toServer,
// what server sends goes to toClient, each line unchanged and in order,
// byte for byte: requests, responses, notifications, the server's requests
// to the client, methods the proxy does not know, lines that are not JSON.
// Only the calls the proxy answers itself (see [Proxy] and [WithGuard]) do
// not pass. Writes to toClient never interleave: each is one whole line. A
// line is forwarded as soon as it is read. There is no size limit short of
// memory: a message the proxy does not read streams through in memory flat
// in its size. The only requests Serve sends of its own are the listings
// of the tools a call needs first, whose responses the client never sees.
//
// When client ends (io.EOF), everything read from it is forwarded, then
// toServer is closed if it is an io.Closer, and Serve keeps relaying the
// server's messages until server ends. Serve returns when server ends (nil
// at its io.EOF), when ctx is done (ctx.Err()), or at the first failure to
// read client or server or to write toClient (that error). A failure to
// write toServer is logged and closes toServer; the client's messages are
// dropped from then on, and Serve returns when the server ends.
//
// Serve does not wait for a read or a write under way on a peer that
// neither sends nor reads (neither can be interrupted); what such a read
// returns is dropped. No write starts after Serve returns.
func (p *Proxy) Serve(ctx context.Context, client io.Reader, toClient io.Writer, server io.Reader, toServer io.Writer) error {
	return p.serve(ctx, client, toClient, server, toServer, p.cfg.limiter, "")
}

// serve is Serve for a session whose calls limiter admits (nil: the
// session's own guards), under keys with limitBy, WithLimitBy's hash.
func (p *Proxy) serve(ctx context.Context, client io.Reader, toClient io.Writer, server io.Reader, toServer io.Writer, limiter guard.Limiter, limitBy string) error {
	ctx, cancel := context.WithCancel(ctx)
	// The tracker's key: "p" and a number. Keys of HTTP sessions begin with
	// "s" or "a" (see sessionKey): they never meet.
	var key string
	if p.repairs != nil {
		key = "p" + strconv.FormatUint(p.sessionSeq.Add(1), 10)
	}
	s := &session{
		key:      key,
		limiter:  limiter,
		limitBy:  limitBy,
		p:        p,
		ctx:      ctx,
		cancel:   cancel,
		toClient: toClient,
		toServer: toServer,
		lists:    map[string]bool{},
		calls:    map[string]func(){},
		queued:   map[string]*queuedCall{},
		guards:   map[string]*toolGuard{},
	}
	clientDone := make(chan error, 1)
	serverDone := make(chan error, 1)
	go func() { clientDone <- s.fromClient(client) }()
	go func() { serverDone <- s.fromServer(server) }()

	var err error
wait:
	for {
		select {
		case err = <-serverDone:
			break wait
		case err = <-clientDone:
			if err != nil {
				break wait
			}
			clientDone = nil // the client is done; relay the server's messages until it ends
		case <-ctx.Done():
			err = ctx.Err()
			break wait
		}
	}
	s.end()
	return err
}

// session is the state of one Serve call.
type session struct {
	p *Proxy
	// key is the session's key for WithOutcomes, "" without it.
	key    string
	ctx    context.Context // done when Serve returns
	cancel context.CancelFunc

	// Writes to each peer are serialized by its mutex; once its flag is
	// set, nothing more is written to it. Its batch keeps what is written
	// while the reader has more whole lines in hand.
	toClient     io.Writer
	clientMu     sync.Mutex
	clientClosed atomic.Bool
	clientBatch  batch
	toServer     io.Writer
	serverMu     sync.Mutex
	serverClosed atomic.Bool
	serverBatch  batch

	// limiter admits the session's calls when not nil; limitBy is the
	// hash of WithLimitBy's value, or "".
	limiter guard.Limiter
	limitBy string

	waiters sync.WaitGroup

	tools toolSet

	mu sync.Mutex
	// lists are the client's tools/list requests awaiting their result,
	// by id key, each with whether it had a cursor.
	lists map[string]bool
	// locale is the language the client's initialize _meta declared.
	locale string
	// guards, calls and queued are WithGuard's (guard.go); calls is nil
	// once Serve has returned.
	guards map[string]*toolGuard
	calls  map[string]func()
	queued map[string]*queuedCall
	// explain are the calls forwarded with issues, by key (explain.go).
	explain map[string]*call
	// own are the proxy's own tools/list requests awaiting their response,
	// by key; nonce and ownSeq make their ids.
	own    map[string]ownList
	nonce  string
	ownSeq uint64
	// relisting: the proxy's own listing is under way; relistAgain: the
	// tools changed again meanwhile.
	relisting, relistAgain bool
	// learnt is closed to wake the calls waiting for the tools, when a
	// page is learned or a listing fails; nil when none waits.
	learnt chan struct{}
	// listGaveUp: a call waited for a listing in vain; later calls do not
	// wait until a listing comes back.
	listGaveUp bool
	// stateless: the client speaks a stateless revision, so the proxy's
	// own requests carry their _meta.
	stateless bool
	// initKey is the client's initialize request's id key until its result
	// has passed; noTools: that result declared no tools capability.
	initKey string
	noTools bool
}

// fromClient relays the client's messages to the server until the client
// ends, then closes toServer.
func (s *session) fromClient(client io.Reader) error {
	lr := wire.NewLineReader(client)
	whole := func(data []byte) bool { return clientWhole(readHead(data)) }
	for {
		line, more, err := lr.NextOrHead(whole)
		if errors.Is(err, io.EOF) {
			s.waiters.Wait() // the calls waiting for a slot are forwarded first
			s.serverMu.Lock()
			s.flushServerLocked()
			if !s.serverClosed.Load() {
				s.closeServerLocked()
			}
			s.serverMu.Unlock()
			return nil
		}
		if err != nil {
			return fmt.Errorf("proxy: reading from the client: %w", err)
		}
		if s.ctx.Err() != nil {
			return nil // Serve has returned
		}
		if more {
			if err := s.streamServer(lr, line); err != nil {
				return err
			}
			continue
		}
		if line[len(line)-1] != '\n' {
			// The client's last line, cut short: nothing may follow it, so
			// the queued calls go first.
			s.waiters.Wait()
		}
		hold := lr.HasLine()
		s.serverBatch.hold.Store(hold)
		if err := s.clientMessage(line); err != nil {
			return err
		}
		if !hold {
			s.flushServer()
		}
	}
}

// clientMessage forwards one line from the client, unless it is a
// tools/call the proxy answers.
func (s *session) clientMessage(line []byte) error {
	var m wire.Message
	if !wire.DecodeTo(line, &m) {
		return s.writeServer(line)
	}
	switch m.Method {
	case methodToolsCall:
		return s.call(line, &m)
	case methodToolsList:
		s.listRequested(&m)
	case methodInitialize:
		s.initialize(&m)
	case methodCancelled:
		s.cancelled(&m)
	}
	return s.writeServer(line)
}

// listRequested notes a tools/list request's id, and whether it has a
// cursor, so that its result is recognised.
func (s *session) listRequested(m *wire.Message) {
	key, ok := wire.IDKey(m.ID)
	if !ok {
		return
	}
	cursor := wire.Str(m.Call.Cursor) // absent or unreadable: no cursor
	stateless := wire.StatelessMeta(m.Call.Meta)
	s.mu.Lock()
	s.lists[key] = cursor != ""
	if stateless {
		s.stateless = true
	}
	s.mu.Unlock()
}

// initialize notes the language the initialize request's _meta declares.
func (s *session) initialize(m *wire.Message) {
	var meta []byte
	wire.Members(m.Params, func(k, v []byte) {
		if string(k) == "_meta" {
			meta = v
		}
	})
	locale := metaLocale(meta)
	key, _ := wire.IDKey(m.ID)
	s.mu.Lock()
	s.locale = locale
	s.initKey = key
	s.mu.Unlock()
}

// toolsCapable reports whether an initialize result declares tools: a
// server without them has no tools/list to ask.
func toolsCapable(result []byte) bool {
	tools := false
	wire.Members(result, func(k, v []byte) {
		if string(k) == "capabilities" {
			wire.Members(v, func(k, _ []byte) {
				if string(k) == "tools" {
					tools = true
				}
			})
		}
	})
	return tools
}

// metaLocale returns the language a _meta object declares, or "".
func metaLocale(meta []byte) string {
	if meta == nil {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	return toolcall.MetaLocaleOf(m)
}

// fromServer relays the server's messages to the client until the server
// ends (nil at its EOF).
func (s *session) fromServer(server io.Reader) error {
	lr := wire.NewLineReader(server)
	var h head // the head of the line being read, when long
	whole := func(data []byte) bool {
		h = readHead(data)
		return s.serverWhole(h)
	}
	for {
		line, more, err := lr.NextOrHead(whole)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("proxy: reading from the server: %w", err)
		}
		if more {
			s.released(h)
			if err := s.streamClient(lr, line); err != nil {
				return err
			}
			continue
		}
		hold := lr.HasLine()
		s.clientBatch.hold.Store(hold)
		if out := s.serverMessage(line); out != nil {
			if err := s.writeClient(out); err != nil {
				return err
			}
		}
		if !hold {
			s.clientMu.Lock()
			err := s.flushClientLocked()
			s.clientMu.Unlock()
			if err != nil {
				return err
			}
		}
	}
}

// serverMessage reads a line from the server and returns what the client
// receives: the line, selfheal's answer in its place (an explained
// rejection), or nil (the response to the proxy's own tools/list). It learns
// tools/list results, frees guard slots, and marks the tools stale at
// notifications/tools/list_changed.
func (s *session) serverMessage(line []byte) []byte {
	var m wire.Message
	if !wire.DecodeTo(line, &m) {
		return line
	}
	if m.Method == methodListChanged {
		s.tools.markStale()
		s.relist()
		return line
	}
	if !m.IsResponse() || !s.awaiting() {
		return line
	}
	key, ok := wire.IDKey(m.ID)
	if !ok {
		return line
	}
	s.mu.Lock()
	cursor, isList := s.lists[key]
	delete(s.lists, key)
	release := s.calls[key]
	delete(s.calls, key)
	ol, own := s.own[key]
	delete(s.own, key)
	x := s.explain[key]
	delete(s.explain, key)
	if s.initKey != "" && key == s.initKey {
		s.initKey = ""
		s.noTools = m.Result != nil && !toolsCapable(m.Result)
	}
	s.mu.Unlock()
	if release != nil {
		release()
	}
	if own {
		var p ownPage
		if m.Result != nil {
			p.next, p.ok = s.tools.learn(s.p, m.Result, ol.first)
		}
		ol.done <- p
		return nil
	}
	if isList {
		if m.Result != nil {
			s.tools.learn(s.p, m.Result, !cursor)
		}
		s.learned()
	}
	if x != nil {
		if answer := x.settle(&m); answer != nil {
			return answer
		}
	}
	return line
}

// awaiting reports whether the session awaits any response: when not, a
// response passes without its id being read.
func (s *session) awaiting() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.lists)+len(s.calls)+len(s.own)+len(s.explain) > 0 || s.initKey != ""
}

// writeClient writes one line to the client, whole.
func (s *session) writeClient(line []byte) error {
	s.clientMu.Lock()
	defer s.clientMu.Unlock()
	if s.clientClosed.Load() {
		return nil
	}
	if err := s.clientBatch.write(s.toClient, line); err != nil {
		return fmt.Errorf("proxy: writing to the client: %w", err)
	}
	if line[len(line)-1] != '\n' {
		// The server's last line, cut short: an answer after it would join it.
		s.clientClosed.Store(true)
	}
	return nil
}

func (s *session) flushClientLocked() error {
	if s.clientClosed.Load() {
		return nil
	}
	if err := s.clientBatch.flush(s.toClient); err != nil {
		return fmt.Errorf("proxy: writing to the client: %w", err)
	}
	return nil
}

// sendServer writes one line of the proxy's own to the server and flushes.
func (s *session) sendServer(line []byte) {
	s.serverMu.Lock()
	defer s.serverMu.Unlock()
	if s.serverClosed.Load() {
		return
	}
	s.serverFailed(s.serverBatch.write(s.toServer, line))
	s.flushServerLocked()
}

// writeServer writes one line to the server, whole. A failure is logged
// and closes the server's side; it does not end Serve, which returns when
// the server's output ends.
func (s *session) writeServer(line []byte) error {
	s.serverMu.Lock()
	defer s.serverMu.Unlock()
	if s.serverClosed.Load() {
		return nil
	}
	s.serverFailed(s.serverBatch.write(s.toServer, line))
	return nil
}

func (s *session) flushServer() {
	s.serverMu.Lock()
	defer s.serverMu.Unlock()
	s.flushServerLocked()
}

func (s *session) flushServerLocked() {
	if !s.serverClosed.Load() {
		s.serverFailed(s.serverBatch.flush(s.toServer))
	}
}

func (s *session) serverFailed(err error) {
	if err != nil {
		s.p.cfg.Logger.Warn("selfheal proxy: cannot write to the server; the client's messages are dropped from now on", "error", err)
		s.closeServerLocked()
	}
}

func (s *session) closeServerLocked() {
	s.serverClosed.Store(true)
	if c, ok := s.toServer.(io.Closer); ok {
		if err := c.Close(); err != nil {
			s.p.cfg.Logger.Debug("selfheal proxy: closing the server's input", "error", err)
		}
	}
}

// end is Serve's last step: nothing more is written, queued calls give up,
// and the slots held are freed. toServer is left to the caller.
func (s *session) end() {
	s.clientClosed.Store(true)
	s.serverClosed.Store(true)
	s.cancel()
	s.mu.Lock()
	calls := s.calls
	s.calls = nil
	s.mu.Unlock()
	for _, release := range calls {
		release()
	}
	s.p.endSession(s.key)
}

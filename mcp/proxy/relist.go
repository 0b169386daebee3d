package proxy

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// ownPrefix starts the ids of the proxy's own requests over stdio. A
// session adds 16 random bytes to it (see ownID), so that no id a client
// chooses can be one of them.
const ownPrefix = relay.OwnPrefix

// relist sends the proxy's own tools/list request to the server: the first
// page when cursor is "", else the page after cursor. The server announced
// that its tools changed (notifications/tools/list_changed); until the
// listing ends, calls pass unchecked (see toolSet.lookup). Clients that
// never list again would otherwise be judged by the old schemas. The
// response never reaches the client (see serverMessage). One listing runs
// at a time; a change announced meanwhile starts another once it ends.
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
		s.relisting = false
		s.mu.Unlock()
		s.p.cfg.Logger.Warn("selfheal proxy: the server's tools/list has too many pages; its tools are learned again when the client lists them", "pages", maxListPages)
		return
	}
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
	s.mu.Unlock()

	req := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"`
	if cursor != "" {
		c, _ := json.Marshal(cursor) // a string always encodes
		req += `,"params":{"cursor":` + string(c) + `}`
	}
	req += "}\n"
	// Not on the goroutine that reads the server: a server blocked writing
	// to the proxy would never read this write, and neither would go on.
	go func() { _ = s.writeServer([]byte(req)) }()
}

// relisted reads the response to the proxy's own tools/list request: the
// tools are learned, the next page asked for, and a listing that ends with
// changes announced meanwhile starts again. first says that the request
// asked for the first page. A failed listing leaves the tools stale: calls
// pass unchecked until the client lists them.
func (s *session) relisted(m *wire.Message, first bool) {
	next, ok := "", false
	if m.Result != nil {
		next, ok = s.tools.learn(s.p, m.Result, first)
	}
	if !ok {
		s.p.cfg.Logger.Debug("selfheal proxy: the proxy's own tools/list failed; calls pass unchecked until the client lists the tools")
		s.mu.Lock()
		s.relisting, s.relistAgain = false, false
		s.mu.Unlock()
		return
	}
	if next != "" {
		s.relist(next)
		return
	}
	s.mu.Lock()
	again := s.relistAgain
	s.relisting, s.relistAgain = false, false
	s.mu.Unlock()
	if again {
		s.relist("")
	}
}

package proxy

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"slices"
	"sync"
	"time"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
)

// tool is one tool as the server listed it, ready to check its calls.
type tool struct {
	name string
	// digest identifies the tool as listed (name, description, schemas):
	// a tool listed again unchanged is neither compiled nor compared again.
	digest [32]byte
	// schema checks the arguments; nil when the calls pass unchecked (the
	// tool has no input schema, or it does not compile).
	schema *jsonschemav6.Schema
	// defaulted are its required properties with a default, never
	// reported missing (see defaulted).
	defaulted defaulted
	// output: the tool declares an output schema, so the issues of a bad
	// call go in _meta rather than structuredContent, which clients check
	// against that schema even when isError is true.
	output bool
	// contract is the <contract_awareness> section of its validation
	// errors (see WithContract); nil for none.
	contract *envelope.Contract
}

// wireTool is what the proxy reads of a tool in a tools/list result.
type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// listPage is what the proxy reads of a tools/list result. Each tool is
// read on its own, so that one it cannot read does not hide the others.
type listPage struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor *string           `json:"nextCursor"`
	// TTLMs and CacheScope: how long the listing may be kept, and by whom
	// (MCP 2026-07-28); absent before.
	TTLMs      *float64 `json:"ttlMs"`
	CacheScope string   `json:"cacheScope"`
}

// toolSet is the tools a session knows, learned from tools/list results.
type toolSet struct {
	mu sync.Mutex
	// tools are the tools learned, by name.
	tools map[string]*tool
	// listing holds the names listed so far by the listing under way (see
	// learn); nil when none is.
	listing map[string]bool
	// stale: the server said its tools changed (markStale) and no listing
	// begun since has ended. changes counts those notices, and listingFrom
	// is the count when the listing under way began: a listing begun
	// before the last notice leaves the tools stale.
	stale       bool
	changes     uint64
	listingFrom uint64
	// listed: a listing has ended (at listedAt), so that a tool not in it
	// is not the server's (see find). expires is when the last listing's
	// ttlMs runs out; zero when it gave none (revisions before 2026-07-28),
	// and the tools stand until the server says they changed.
	listed   bool
	listedAt time.Time
	expires  time.Time
	// failedAt is when the proxy's own listing last failed: it is not
	// tried again for listRetry (see backingOff).
	failedAt time.Time
	// ttl and scope are what the pages of the listing under way said.
	ttl   *float64
	scope string
}

// need is what a call needs before the proxy judges it (see find).
type need int

const (
	// ready: the tools are known; a tool not among them is not the
	// server's, and its call passes.
	ready need = iota
	// listFirst: no listing is known, or the server said that its tools
	// changed, or the tool is not in a listing whose ttlMs has passed: the
	// proxy lists the tools before it judges the call.
	listFirst
	// revalidate: the tool is in a listing whose ttlMs has passed. The
	// call is judged by it, and the proxy lists the tools again for the
	// calls after it: a schema rarely changes, and a server's default
	// ttlMs of 0 would otherwise cost every call a listing first.
	revalidate
)

// find returns the tool named name, and what its call needs first.
func (ts *toolSet) find(name string) (*tool, need) { return ts.findAged(name, 0) }

// findAged is find with a listing that gave no ttlMs kept for maxAge at
// most (0: until the server says the tools changed). Over HTTP a replica
// may never see the notifications/tools/list_changed of a session.
func (ts *toolSet) findAged(name string, maxAge time.Duration) (*tool, need) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stale || !ts.listed || maxAge > 0 && ts.expires.IsZero() && time.Since(ts.listedAt) >= maxAge {
		return nil, listFirst
	}
	t := ts.tools[name]
	if !ts.expires.IsZero() && !time.Now().Before(ts.expires) {
		if t == nil {
			return nil, listFirst
		}
		return t, revalidate
	}
	return t, ready
}

// ended notes the end of the proxy's own listing, failed or not.
func (ts *toolSet) ended(failed bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.failedAt = time.Time{}
	if failed {
		ts.failedAt = time.Now()
	}
}

// backingOff reports whether the proxy's own listing failed less than
// listRetry ago.
func (ts *toolSet) backingOff() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return !ts.failedAt.IsZero() && time.Since(ts.failedAt) < listRetry
}

// scopeOf is the cacheScope of the last listing: "public", "private", or
// "" when it said none (revisions before 2026-07-28).
func (ts *toolSet) scopeOf() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.scope
}

// lookup returns the tool named name, or nil when it is not known or the
// tools are stale: a call is never judged by a schema the server may have
// replaced.
func (ts *toolSet) lookup(name string) *tool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stale {
		return nil
	}
	return ts.tools[name]
}

// markStale notes the server's notifications/tools/list_changed.
func (ts *toolSet) markStale() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.stale = true
	ts.changes++
}

// learn reads one page of a tools/list result, before it is forwarded to
// the client (so that a call the client sends once it has read the list is
// checked). A listing that ends clears the staleness of the tools, unless
// the server announced a change since it began. first says that the request had no cursor: the page starts a
// new listing. A listing replaces the tools known when its last page (one
// without nextCursor) arrives; until then, tools it has not listed yet stay
// known with their old schemas, and the tools it has listed are known with
// their new ones. A page of a request with a cursor outside of any listing
// (the client fetched one page again) only adds and updates tools. It
// returns the next page's cursor, "" after the last page, and whether the
// result could be read.
func (ts *toolSet) learn(p *Proxy, result json.RawMessage, first bool) (next string, ok bool) {
	var page listPage
	if err := json.Unmarshal(result, &page); err != nil {
		p.cfg.Logger.Debug("selfheal proxy: cannot read a tools/list result; its tools are not learned", "error", err)
		return "", false
	}
	learned := make([]*tool, 0, len(page.Tools))
	for _, raw := range page.Tools {
		var w wireTool
		if err := json.Unmarshal(raw, &w); err != nil || w.Name == "" {
			p.cfg.Logger.Debug("selfheal proxy: cannot read a tool of a tools/list result; its calls pass unchecked", "error", err)
			continue
		}
		learned = append(learned, ts.toolOf(p, &w))
	}
	if page.NextCursor != nil {
		next = *page.NextCursor
	}

	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.tools == nil {
		ts.tools = map[string]*tool{}
	}
	if first {
		ts.listing = map[string]bool{}
		ts.listingFrom = ts.changes
		ts.ttl, ts.scope = nil, ""
	}
	if page.TTLMs != nil {
		ts.ttl = page.TTLMs
	}
	if page.CacheScope != "" {
		ts.scope = page.CacheScope
	}
	for _, t := range learned {
		ts.tools[t.name] = t
		if ts.listing != nil {
			ts.listing[t.name] = true
		}
	}
	if next == "" && ts.listing != nil {
		for name := range ts.tools {
			if !ts.listing[name] {
				delete(ts.tools, name)
			}
		}
		ts.listing = nil
		if ts.listingFrom == ts.changes {
			ts.stale = false
		}
		ts.listed, ts.listedAt = true, time.Now()
		ts.expires = expiry(ts.ttl)
	}
	return next, true
}

// minTTL is the shortest a listing is kept before it is revalidated, so
// that a ttlMs of 0 (the TypeScript SDK's default) does not mean a listing
// for every call.
const minTTL = time.Second

// expiry is when a listing with ttlMs ttl, ending now, runs out: zero
// (never) without a ttlMs; a ttlMs that is not a whole number of
// milliseconds at least 0 is read as 0.
func expiry(ttl *float64) time.Time {
	if ttl == nil {
		return time.Time{}
	}
	d := minTTL
	if ms := *ttl; ms >= 0 && ms <= float64(24*time.Hour/time.Millisecond) {
		d = max(d, time.Duration(ms)*time.Millisecond)
	} else if ms > 0 {
		d = 24 * time.Hour
	}
	return time.Now().Add(d)
}

// toolOf returns the tool w describes: the one already known when it is
// listed unchanged, else a new one with its schema compiled (through the
// proxy's cache) and its contract section computed.
func (ts *toolSet) toolOf(p *Proxy, w *wireTool) *tool {
	d := toolDigest(w)
	if old := ts.lookup(w.Name); old != nil && old.digest == d {
		return old
	}
	t := &tool{name: w.Name, digest: d, output: present(w.OutputSchema)}
	if !present(w.InputSchema) {
		p.cfg.Logger.Warn("selfheal proxy: the tool has no input schema; its calls pass unchecked", "tool", w.Name)
		return t
	}
	t.schema = p.schemas.compile(p, w.Name, w.InputSchema)
	if t.schema != nil {
		t.defaulted = defaultedOf(w.InputSchema)
	}
	if t.schema != nil && p.lock != nil {
		var out any
		if t.output {
			out = w.OutputSchema
		}
		ct, err := p.cfg.ToolContract(p.lock, w.Name, w.Description, w.InputSchema, out)
		if err != nil {
			p.cfg.Logger.Warn("selfheal proxy: cannot compare the tool with the lockfile", "tool", w.Name, "error", err)
		}
		t.contract = ct
	}
	return t
}

// present reports whether a schema is there: neither absent nor null.
func present(schema json.RawMessage) bool {
	return len(schema) > 0 && !bytes.Equal(schema, []byte("null"))
}

// toolDigest is the SHA-256 of a listed tool's name, description and
// schemas, each preceded by its length.
func toolDigest(w *wireTool) [32]byte {
	h := sha256.New()
	for _, part := range [][]byte{[]byte(w.Name), []byte(w.Description), w.InputSchema, w.OutputSchema} {
		h.Write(binary.AppendUvarint(nil, uint64(len(part))))
		h.Write(part)
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// maxSchemas bounds the schema cache: past it, the cache starts afresh.
const maxSchemas = 1024

// schemaCache holds each distinct input schema compiled once, keyed by the
// SHA-256 of its bytes, for every session of a proxy. Its lock is held only
// to find or add an entry: a schema is compiled outside it, once, by the
// first session that needs it, while the others that need the same schema
// wait for that compilation and the rest go on. A schema that does not
// compile is kept as nil, so that it is logged once.
type schemaCache struct {
	mu sync.Mutex
	m  map[[32]byte]*schemaEntry
	// compileFn compiles a schema; nil is jsonschemav6.Compile (tests
	// hold one compilation back with it).
	compileFn func(data []byte, opts ...jsonschemav6.Option) (*jsonschemav6.Schema, error)
}

// schemaEntry is one schema of the cache, compiled by once.
type schemaEntry struct {
	once sync.Once
	sch  *jsonschemav6.Schema // nil when it does not compile
}

// compile returns the compiled schema, or nil when it does not compile;
// name is the tool it is compiled for, for the log.
func (c *schemaCache) compile(p *Proxy, name string, raw json.RawMessage) *jsonschemav6.Schema {
	key := sha256.Sum256(raw)
	c.mu.Lock()
	e, ok := c.m[key]
	if !ok {
		if c.m == nil || len(c.m) >= maxSchemas {
			c.m = map[[32]byte]*schemaEntry{}
		}
		e = &schemaEntry{}
		c.m[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.sch = c.compileNow(p, name, raw) })
	return e.sch
}

// compileNow compiles raw and logs what does not compile.
func (c *schemaCache) compileNow(p *Proxy, name string, raw json.RawMessage) *jsonschemav6.Schema {
	// A pattern no engine compiles (ECMAScript syntax regexp2 lacks, or a
	// mistake) is skipped, not the whole schema: the rest still checks
	// the calls.
	var skipped []string
	var reason error
	opts := append(slices.Clip(p.schemaOpts), jsonschemav6.WithUncompilablePatterns(func(pattern string, err error) {
		skipped = append(skipped, pattern)
		if reason == nil {
			reason = err
		}
	}))
	compile := c.compileFn
	if compile == nil {
		compile = jsonschemav6.Compile
	}
	sch, err := compile(raw, opts...)
	if err != nil {
		p.cfg.Logger.Warn("selfheal proxy: a tool's input schema does not compile; its calls pass unchecked",
			"tool", name, "error", err)
		return nil
	}
	if len(skipped) > 0 {
		p.cfg.Logger.Warn("selfheal proxy: patterns of a tool's input schema do not compile; they are not checked, the rest of the schema is",
			"tool", name, "patterns", skipped, "error", reason)
	}
	return sch
}

package proxy

import (
	"bytes"
	"cmp"
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
	// digest identifies the tool as listed: one listed again unchanged is
	// neither compiled nor compared again.
	digest [32]byte
	// schema checks the arguments; nil when the calls pass unchecked.
	schema *jsonschemav6.Schema
	// defaulted are its required properties with a default, never missing.
	defaulted defaulted
	// output: the tool declares an output schema, so a bad call's issues
	// go in _meta: clients check structuredContent against that schema.
	output bool
	// contract is its <contract_awareness> section (WithContract), or nil.
	contract *envelope.Contract
}

// wireTool is what the proxy reads of a tool in a tools/list result.
type wireTool struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// listPage is what the proxy reads of a tools/list result; each tool is
// read on its own, so that one it cannot read hides no other.
type listPage struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor *string           `json:"nextCursor"`
	// TTLMs and CacheScope: MCP 2026-07-28; absent before.
	TTLMs      *float64 `json:"ttlMs"`
	CacheScope string   `json:"cacheScope"`
}

// toolSet is the tools a session knows, learned from tools/list results.
type toolSet struct {
	mu    sync.Mutex
	tools map[string]*tool
	// listing holds the names listed so far by the listing under way.
	listing map[string]bool
	// stale: the server said its tools changed and no listing begun since
	// has ended. changes counts those notices; listingFrom is the count
	// when the listing under way began.
	stale       bool
	changes     uint64
	listingFrom uint64
	// listed: a listing has ended (at listedAt), so a tool not in it is not
	// the server's. expires is when its ttlMs runs out; zero without one:
	// the tools stand until the server says they changed.
	listed   bool
	listedAt time.Time
	expires  time.Time
	// failedAt is when the proxy's own listing last failed (backingOff).
	failedAt time.Time
	ttl      *float64
	scope    string
}

type need int

const (
	// ready: the tools are known; a tool not among them passes.
	ready need = iota
	// listFirst: no listing known, the tools changed, or the tool is not
	// in a listing past its ttlMs: the proxy lists before it judges.
	listFirst
	// revalidate: the tool is in a listing past its ttlMs: the call is
	// judged by it while the tools are listed again behind it (a default
	// ttlMs of 0 would otherwise cost every call a listing).
	revalidate
)

// find returns the tool named name, and what its call needs first.
func (ts *toolSet) find(name string) (*tool, need) { return ts.findAged(name, 0) }

// findAged is find with a listing that gave no ttlMs kept for maxAge at
// most (0: for ever): over HTTP a replica may miss list_changed.
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

// backingOff reports whether the proxy's own listing failed within listRetry.
func (ts *toolSet) backingOff() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return !ts.failedAt.IsZero() && time.Since(ts.failedAt) < listRetry
}

// scopeOf is the last listing's cacheScope, "" for none.
func (ts *toolSet) scopeOf() string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.scope
}

// lookup returns the tool named name, or nil when unknown or stale: a call
// is never judged by a schema the server may have replaced.
func (ts *toolSet) lookup(name string) *tool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.stale {
		return nil
	}
	return ts.tools[name]
}

func (ts *toolSet) markStale() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.stale = true
	ts.changes++
}

// learn reads one page of a tools/list result before it is forwarded, so
// that a call sent once the client has read the list is checked. first
// (no cursor) starts a listing, which replaces the tools known when its
// last page arrives and clears their staleness unless a change was
// announced since it began; meanwhile old and new schemas are known. A
// page outside any listing only adds and updates tools. It returns the
// next cursor ("" after the last page) and whether the result could be
// read.
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

// minTTL is the shortest a listing stands, so that a ttlMs of 0 (the
// TypeScript SDK's default) does not mean a listing for every call.
const minTTL = time.Second

// expiry is when a listing with ttlMs ttl, ending now, runs out: never
// without one; a value not a whole number of milliseconds ≥ 0 is 0.
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

// toolOf returns the tool w describes: the one known when unchanged, else
// a new one, compiled through the cache.
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

func present(schema json.RawMessage) bool {
	return len(schema) > 0 && !bytes.Equal(schema, []byte("null"))
}

// toolDigest hashes a tool's name, description and schemas, each preceded
// by its length.
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

// schemaCache holds each distinct input schema compiled once, by SHA-256,
// for every session of a proxy. A schema is compiled outside the lock by
// the first session that needs it while others wait for it; one that does
// not compile is kept as nil, so that it is logged once.
type schemaCache struct {
	mu sync.Mutex
	m  map[[32]byte]*schemaEntry
	// compileFn is jsonschemav6.Compile when nil (tests hold one back).
	compileFn func(data []byte, opts ...jsonschemav6.Option) (*jsonschemav6.Schema, error)
}

// schemaEntry is one schema of the cache, compiled by once.
type schemaEntry struct {
	once sync.Once
	sch  *jsonschemav6.Schema // nil when it does not compile
}

// compile returns the compiled schema, or nil; name is for the log.
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
	e.once.Do(func() {
		// A pattern no engine compiles is skipped, not the whole schema.
		var skipped []string
		var reason error
		opts := append(slices.Clip(p.schemaOpts), jsonschemav6.WithUncompilablePatterns(func(pattern string, err error) {
			skipped = append(skipped, pattern)
			reason = cmp.Or(reason, err)
		}))
		compile := c.compileFn
		if compile == nil {
			compile = jsonschemav6.Compile
		}
		sch, err := compile(raw, opts...)
		if err != nil {
			p.cfg.Logger.Warn("selfheal proxy: a tool's input schema does not compile; its calls pass unchecked",
				"tool", name, "error", err)
			return
		}
		if len(skipped) > 0 {
			p.cfg.Logger.Warn("selfheal proxy: patterns of a tool's input schema do not compile; they are not checked, the rest of the schema is",
				"tool", name, "patterns", skipped, "error", reason)
		}
		e.sch = sch
	})
	return e.sch
}

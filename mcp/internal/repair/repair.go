package repair

import (
	"crypto/rand"
	"encoding/hex"
	"hash/maphash"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/selfheal/selfheal"
)

// The outcomes an answer settles with.
const (
	// Repaired: the session's next call of the tool was accepted.
	Repaired = "repaired"
	// FailedSame: the next call was answered again, with issues at the
	// same field paths as the answer's.
	FailedSame = "failed_same"
	// FailedOther: the next call was answered again, on other fields
	// (some or all).
	FailedOther = "failed_other"
	// Abandoned: no call of the tool came within Limits.Within, the
	// session ended, or the entry made room for newer ones.
	Abandoned = "abandoned"
)

// Outcome is how one answer to a bad call settled; the Outcome field is
// Repaired, FailedSame, FailedOther or Abandoned.
type Outcome = selfheal.Outcome

// Limits bound a Tracker. Zero fields take the defaults.
type Limits struct {
	// Within is how long an answer waits for the next call of its tool
	// before it is abandoned: 5 minutes by default. A model retries within
	// its turn, seconds later; a user who stepped away has moved on.
	Within time.Duration
	// PerSession bounds the answers of one session awaiting their next
	// call (one per tool): 64 by default.
	PerSession int
	// Total bounds the answers awaiting their next call, all sessions
	// together: 20,000 by default (about 6 MB: 290 bytes each, measured
	// with 10,000 sessions in the package's tests).
	Total int
}

// Defaults of Limits.
const (
	DefaultWithin     = 5 * time.Minute
	DefaultPerSession = 64
	DefaultTotal      = 20_000
)

// Tracker settles answers. It is safe for concurrent use. The zero value
// is not usable; see New.
type Tracker struct {
	report func(Outcome)
	now    func() time.Time
	lim    Limits
	prefix string // of the answers' ids: unique per Tracker
	seq    atomic.Uint64
	seed   maphash.Seed

	// n mirrors len(pending), so that a call in a session with nothing
	// pending (the usual case) costs one atomic load.
	n atomic.Int64

	mu       sync.Mutex
	pending  map[key]*entry
	sessions map[string]*chain // each session's entries, oldest first
	// all are the entries in the order of their answers: the oldest are
	// abandoned first.
	all chain
}

type key struct{ session, tool string }

type entry struct {
	key
	id      string
	attempt int
	fields  uint64 // hash of the answer's field paths
	at      time.Time
	// all links the entry in Tracker.all, own in its session's chain.
	all, own links
}

// links are an entry's neighbours in a chain.
type links struct{ prev, next *entry }

// chain is a list of entries in the order of their answers: all of them
// (Tracker.all, linked by entry.all), or one session's (linked by
// entry.own).
type chain struct {
	oldest, newest *entry
	n              int
}

func allLinks(e *entry) *links { return &e.all }
func ownLinks(e *entry) *links { return &e.own }

// push appends e to c, linked by l.
func (c *chain) push(e *entry, l func(*entry) *links) {
	l(e).prev = c.newest
	if c.newest != nil {
		l(c.newest).next = e
	} else {
		c.oldest = e
	}
	c.newest = e
	c.n++
}

// unlink takes e out of c, linked by l.
func (c *chain) unlink(e *entry, l func(*entry) *links) {
	el := l(e)
	if el.prev != nil {
		l(el.prev).next = el.next
	} else {
		c.oldest = el.next
	}
	if el.next != nil {
		l(el.next).prev = el.prev
	} else {
		c.newest = el.prev
	}
	*el = links{}
	c.n--
}

// New returns a tracker that passes each settled answer to report (called
// without locks held, on the goroutine of the event that settled it; it
// must be safe for concurrent use). now is the clock (time.Now when nil);
// tests give their own.
func New(report func(Outcome), lim Limits, now func() time.Time) *Tracker {
	if lim.Within <= 0 {
		lim.Within = DefaultWithin
	}
	if lim.PerSession <= 0 {
		lim.PerSession = DefaultPerSession
	}
	if lim.Total <= 0 {
		lim.Total = DefaultTotal
	}
	if now == nil {
		now = time.Now
	}
	var b [4]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return &Tracker{
		report:   report,
		now:      now,
		lim:      lim,
		prefix:   hex.EncodeToString(b[:]) + "-",
		seed:     maphash.MakeSeed(),
		pending:  map[key]*entry{},
		sessions: map[string]*chain{},
	}
}

// Answered records that the call of tool in session was answered with
// issues at fields (their paths) and returns the answer's id, unique to
// the tracker (and, with its random prefix, across runs of the program):
// the call log writes it on the answer's line. The answer before it of the
// same tool in the session, if any, settles as failed again. session ""
// is not tracked (a request without a session), but gets an id.
func (t *Tracker) Answered(session, tool string, fields []string) string {
	id := t.prefix + strconv.FormatUint(t.seq.Add(1), 10)
	if session == "" {
		return id
	}
	h := t.fieldsHash(fields)
	now := t.now()
	var out [3]Outcome
	settled := out[:0]
	t.mu.Lock()
	settled = t.expire(now, settled)
	k := key{session, tool}
	attempt := 1
	if e := t.pending[k]; e != nil {
		o := FailedOther
		if e.fields == h {
			o = FailedSame
		}
		settled = append(settled, e.outcome(o, now))
		attempt = e.attempt + 1
		t.remove(e)
	}
	if c := t.sessions[session]; c != nil && c.n >= t.lim.PerSession {
		settled = append(settled, c.oldest.outcome(Abandoned, now))
		t.remove(c.oldest)
	}
	if len(t.pending) >= t.lim.Total {
		settled = append(settled, t.all.oldest.outcome(Abandoned, now))
		t.remove(t.all.oldest)
	}
	t.add(&entry{key: k, id: id, attempt: attempt, fields: h, at: now})
	t.mu.Unlock()
	t.send(settled)
	return id
}

// Accepted records that a call of tool in session was accepted: the
// answer before it, if any, settles as repaired.
func (t *Tracker) Accepted(session, tool string) {
	if t.n.Load() == 0 || session == "" {
		return
	}
	now := t.now()
	var out [2]Outcome
	settled := out[:0]
	t.mu.Lock()
	settled = t.expire(now, settled)
	if e := t.pending[key{session, tool}]; e != nil {
		settled = append(settled, e.outcome(Repaired, now))
		t.remove(e)
	}
	t.mu.Unlock()
	t.send(settled)
}

// End records that session ended: its answers still awaiting a call settle
// as abandoned.
func (t *Tracker) End(session string) {
	if t.n.Load() == 0 || session == "" {
		return
	}
	now := t.now()
	var settled []Outcome
	t.mu.Lock()
	settled = t.expire(now, settled)
	for c := t.sessions[session]; c != nil && c.oldest != nil; {
		settled = append(settled, c.oldest.outcome(Abandoned, now))
		t.remove(c.oldest)
	}
	t.mu.Unlock()
	t.send(settled)
}

// Sweep settles as abandoned the answers that waited longer than
// Limits.Within. Every other method does it too; Sweep is for a program
// that wants them counted when no call comes (before its metrics are
// read, or when it stops).
func (t *Tracker) Sweep() {
	if t.n.Load() == 0 {
		return
	}
	t.mu.Lock()
	settled := t.expire(t.now(), nil)
	t.mu.Unlock()
	t.send(settled)
}

// Close settles every answer still awaiting a call as abandoned: the
// program is ending, and so are its sessions.
func (t *Tracker) Close() {
	now := t.now()
	var settled []Outcome
	t.mu.Lock()
	for t.all.oldest != nil {
		settled = append(settled, t.all.oldest.outcome(Abandoned, now))
		t.remove(t.all.oldest)
	}
	t.mu.Unlock()
	t.send(settled)
}

// Pending is how many answers await their next call.
func (t *Tracker) Pending() int { return int(t.n.Load()) }

// expire appends to settled the entries older than Within, and removes
// them. The entries are in the order of their answers, so it stops at the
// first younger one: each entry is looked at once in its life.
func (t *Tracker) expire(now time.Time, settled []Outcome) []Outcome {
	for e := t.all.oldest; e != nil && now.Sub(e.at) >= t.lim.Within; e = t.all.oldest {
		settled = append(settled, e.outcome(Abandoned, now))
		t.remove(e)
	}
	return settled
}

func (t *Tracker) add(e *entry) {
	t.pending[e.key] = e
	c := t.sessions[e.session]
	if c == nil {
		c = &chain{}
		t.sessions[e.session] = c
	}
	c.push(e, ownLinks)
	t.all.push(e, allLinks)
	t.n.Add(1)
}

func (t *Tracker) remove(e *entry) {
	delete(t.pending, e.key)
	c := t.sessions[e.session]
	c.unlink(e, ownLinks)
	if c.n == 0 {
		delete(t.sessions, e.session)
	}
	t.all.unlink(e, allLinks)
	t.n.Add(-1)
}

func (e *entry) outcome(o string, now time.Time) Outcome {
	return Outcome{Tool: e.tool, Answer: e.id, Outcome: o, Attempt: e.attempt, Elapsed: now.Sub(e.at)}
}

func (t *Tracker) send(settled []Outcome) {
	if t.report == nil {
		return
	}
	for _, o := range settled {
		t.report(o)
	}
}

// fieldsHash hashes a set of paths, each given once (as the integrations
// list them): the same paths in any order hash the same.
func (t *Tracker) fieldsHash(fields []string) uint64 {
	var sum uint64
	for _, f := range fields {
		sum += maphash.String(t.seed, f) // order-free: a sum of the members' hashes
	}
	return sum
}

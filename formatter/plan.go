package formatter

import (
	"encoding/json"
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/selfheal/selfheal/internal/templates"
	"github.com/selfheal/selfheal/internal/xmlenc"
	"github.com/selfheal/selfheal/issues"
)

// A line is mostly text that depends only on where the issue comes from:
// the bound, the expected type, the format and its example, the allowed
// values. Servers send the same failures again and again with different
// values, so the formatter keeps, per template and such facts, a partial
// template with those parts already rendered (templates.Template.Partial),
// and renders only the value-dependent placeholders on each call.
//
// The cache is a fixed array of slots, so its memory is bounded whatever
// the issues: a pair of slots is chosen by a cheap hash of the facts' addresses
// (adapters hand out the same strings for the same schema keyword), and a
// plan is used only when its facts are equal in content, so a collision or
// a fresh copy of a string costs a miss, never a wrong line. A plan is
// built the second time its pair misses the same hash, and a plan that is
// being hit is not evicted by another, so one-off issues do not allocate
// and two that collide do not evict each other on every call.

const planSlots = 512 // a power of two

// plans is a Formatter's cache of partial templates: pairs of slots, so
// that two facts whose hashes collide can both keep a plan.
type plans struct {
	slot [planSlots]atomic.Pointer[plan]
	seen [planSlots / 2]atomic.Uintptr // the last hash each pair missed
}

// plan is a template with the parts fixed by key already rendered.
type plan struct {
	key   planKey
	tpl   *templates.Template
	plain bool        // its fixed text needs no escaping (xmlenc.Plain)
	used  atomic.Bool // hit since its pair last needed room
}

// noFiller renders every placeholder as nothing: what is left of a partial
// template is its fixed text.
type noFiller struct{}

func (noFiller) AppendPlaceholder(dst []byte, _ templates.Placeholder) []byte { return dst }

// planKey is everything the fixed placeholders read. Only placeholders
// whose text is a function of these are fixed (see fixed).
type planKey struct {
	tpl              *templates.Template
	code             issues.Code
	kind             kind // of the value sent: origins and examples depend on it
	hidden           bool // the field is sensitive
	absent           bool // nothing was sent: {sent} says so
	allowed          allowedFacts
	expected, origin string
	minimum, maximum issues.Number
	format, pattern  string
	divisor          issues.Number
	message          string
	keys             []string // unrecognized_keys: the allowed keys
	values           []any    // invalid_value and the like: the allowed values
}

// allowedFacts says what {allowed} is rendered from.
type allowedFacts uint8

const (
	noAllowed     allowedFacts = iota // the template has no {allowed}
	allowedKeys                       // Issue.Allowed, the keys of unrecognized_keys
	allowedValues                     // Issue.Values, plain scalars
	allowedOpen                       // not fixed: a custom check's values, or values that are not plain scalars
)

// The allowed values of invalid_value and the allowed keys come from the
// schema; a custom check's values (the items a unique check found
// repeated) come from what was sent, and a plan is never keyed on what was
// sent.
func allowedOf(tpl *templates.Template, is *issues.Issue) allowedFacts {
	switch {
	case !tpl.Has(templates.Allowed):
		return noAllowed
	case is.Code == issues.UnrecognizedKeys:
		return allowedKeys
	case is.Code != issues.Custom && scalars(is.Values):
		return allowedValues
	}
	return allowedOpen
}

// fixed reports whether placeholder p is rendered into the plan.
func (k *planKey) fixed(p templates.Placeholder) bool {
	switch p {
	case templates.Expected, templates.Minimum, templates.Maximum, templates.Format,
		templates.FormatExpected, templates.Example, templates.Pattern, templates.Divisor,
		templates.CustomMessage, templates.Received:
		return true
	case templates.Sent:
		return k.absent
	case templates.Allowed:
		return k.allowed != allowedOpen
	}
	return false
}

// planned reports whether a template can be planned: {value} reads what an
// earlier placeholder left behind, so it must see them all rendered.
func planned(tpl *templates.Template) bool { return !tpl.Has(templates.Value) }

// newPlanKey copies the facts of is, and the slices it reads, so that the
// caller may change them afterwards.
func newPlanKey(tpl *templates.Template, is *issues.Issue, hidden bool) planKey {
	k := planKey{tpl: tpl, code: is.Code, kind: kindOf(is.Input), hidden: hidden, absent: is.Absent,
		allowed: allowedOf(tpl, is), expected: is.Expected, origin: is.Origin,
		minimum: is.Minimum, maximum: is.Maximum, format: is.Format, pattern: is.Pattern,
		divisor: is.Divisor, message: is.Message}
	switch k.allowed {
	case allowedKeys:
		k.keys = slices.Clone(is.Allowed)
	case allowedValues:
		k.values = slices.Clone(is.Values)
	}
	return k
}

// planHash mixes the addresses of the facts of is: equal facts from the
// same source land in the same pair of slots at the cost of one
// multiplication.
func planHash(tpl *templates.Template, is *issues.Issue, hidden bool, allowed allowedFacts) uintptr {
	// The facts that tell sites apart; the others are compared, not hashed.
	h := uintptr(unsafe.Pointer(tpl)) ^ addr(is.Expected)*3 ^ addr(string(is.Minimum))*5 ^
		addr(string(is.Maximum))*7 ^ addr(is.Format)*11 ^ addr(is.Pattern)*13
	switch allowed {
	case allowedKeys:
		h ^= uintptr(unsafe.Pointer(unsafe.SliceData(is.Allowed))) * 17
	case allowedValues:
		h ^= uintptr(unsafe.Pointer(unsafe.SliceData(is.Values))) * 17
	}
	h ^= uintptr(kindOf(is.Input)) | boolBit(hidden)<<4 | boolBit(is.Absent)<<5 | uintptr(allowed)<<6
	x := uint64(h) * 0x9E3779B97F4A7C15
	return uintptr(x ^ x>>32)
}

func addr(s string) uintptr { return uintptr(unsafe.Pointer(unsafe.StringData(s))) }

// eq is a == b, answered inline when both are the same memory, as the
// facts of a plan and of the issues that hit it usually are.
func eq(a, b string) bool {
	return len(a) == len(b) && (unsafe.StringData(a) == unsafe.StringData(b) || a == b)
}

func boolBit(b bool) uintptr {
	if b {
		return 1
	}
	return 0
}

// matches compares the facts of is with the key's by content. The values
// are plain scalars on both sides (see scalars), so comparing them cannot
// panic.
func (k *planKey) matches(tpl *templates.Template, is *issues.Issue, hidden bool, allowed allowedFacts) bool {
	if k.tpl != tpl || k.hidden != hidden || k.absent != is.Absent || k.allowed != allowed || !eq(string(k.code), string(is.Code)) ||
		!eq(k.expected, is.Expected) || !eq(k.origin, is.Origin) || !eq(string(k.minimum), string(is.Minimum)) ||
		!eq(string(k.maximum), string(is.Maximum)) || !eq(k.format, is.Format) || !eq(k.pattern, is.Pattern) ||
		!eq(string(k.divisor), string(is.Divisor)) || !eq(k.message, is.Message) || k.kind != kindOf(is.Input) {
		return false
	}
	switch allowed {
	case allowedKeys:
		if len(k.keys) != len(is.Allowed) {
			return false
		}
		for i, key := range k.keys {
			if !eq(key, is.Allowed[i]) {
				return false
			}
		}
	case allowedValues:
		if len(k.values) != len(is.Values) {
			return false
		}
		for i, v := range k.values {
			if str, ok := v.(string); ok { // most enums: compared by address first
				if other, ok := is.Values[i].(string); !ok || !eq(str, other) {
					return false
				}
			} else if v != is.Values[i] {
				return false
			}
		}
	}
	return true
}

// scalars reports whether every value is a plain comparable scalar, which
// a plan can hold a copy of and compare safely.
func scalars(values []any) bool {
	for _, v := range values {
		switch v.(type) {
		case nil, string, json.Number, issues.Number, bool, float64, float32,
			int, int8, int16, int32, int64, uint, uint8, uint16, uint32, uint64:
		default:
			return false
		}
	}
	return true
}

// appendPlanned renders message m for s.is like appendMessage, through
// the plan cache. For the top level of a line (s.top) it also works out
// whether the line is plain, so that emitLine can copy it as it is.
func (s *state) appendPlanned(dst []byte, m *templates.Message, count int64) []byte {
	top := s.top
	s.top = false
	if m == nil {
		return dst
	}
	form := templates.Other
	if m.Plural() {
		form = s.f.cat.Form(count)
	}
	tpl, cnt := s.tpl, s.count
	s.tpl, s.count = m.Template(form), count
	t, plain := s.plan(s.tpl)
	if top && plain {
		s.watch, s.dirty = true, false
		dst = t.Append(dst, s)
		s.watch, s.plain = false, !s.dirty
	} else {
		dst = t.Append(dst, s)
	}
	s.tpl, s.count = tpl, cnt
	return dst
}

// plan returns the template to render for s.is, the cached partial one
// when its facts match (else tpl itself), and whether its fixed text is
// plain.
func (s *state) plan(tpl *templates.Template) (*templates.Template, bool) {
	if !planned(tpl) {
		return tpl, false
	}
	is := s.is
	allowed := allowedOf(tpl, is)
	h := planHash(tpl, is, s.hidden, allowed)
	c := &s.f.plans
	pair := h & (planSlots/2 - 1)
	a, b := &c.slot[2*pair], &c.slot[2*pair+1]
	for _, slot := range [2]*atomic.Pointer[plan]{a, b} {
		if p := slot.Load(); p != nil && p.key.matches(tpl, is, s.hidden, allowed) {
			if !p.used.Load() { // read first: hits then write nothing shared
				p.used.Store(true)
			}
			return p.tpl, p.plain
		}
	}
	if c.seen[pair].Swap(h) != h {
		return tpl, false // first sight: perhaps a one-off, not worth a plan yet
	}
	// Room: an empty slot, else one not hit since the pair last needed
	// room; a pair whose plans are both in use keeps them, this time.
	victim := a
	switch pa, pb := a.Load(), b.Load(); {
	case pa == nil:
	case pb == nil:
		victim = b
	case !pa.used.Load():
	case !pb.used.Load():
		victim = b
	default:
		pa.used.Store(false)
		pb.used.Store(false)
		return tpl, false
	}
	p := &plan{key: newPlanKey(tpl, is, s.hidden)}
	p.tpl = tpl.Partial(s, p.key.fixed)
	p.plain = xmlenc.Plain(p.tpl.Append(nil, noFiller{}))
	victim.Store(p)
	return p.tpl, p.plain
}

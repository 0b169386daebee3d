package formatter

import (
	"encoding/binary"
	"encoding/json"
	"hash/maphash"
	"math"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/selfheal/selfheal/internal/templates"
	"github.com/selfheal/selfheal/issues"
)

// A line is mostly text that depends only on where the issue comes from:
// the bound, the expected type, the format and its example, the allowed
// values. Servers send the same failures again and again with different
// values, so the formatter keeps, per message and such facts, a partial
// template with those parts already rendered (templates.Template.Partial),
// and renders only the value-dependent placeholders on each call.
//
// Plans are keyed by content: the key is the facts written out as bytes
// (planKey), so a fresh copy of a string finds the same plan and a slice
// changed in place finds another. The cache is bounded: once it holds
// maxPlans plans it starts again empty. A plan is built the second time its
// key is missed, so that one-off issues do not allocate.

// maxPlans bounds the plans of one Formatter.
const maxPlans = 1024

// plans is a Formatter's cache of partial templates.
type plans struct {
	mu   sync.RWMutex
	m    map[string]*plan
	seed maphash.Seed
	seen [256]atomic.Uint64 // hashes of keys missed once
}

// plan is a template with the parts fixed by its key already rendered.
type plan struct {
	tpl *templates.Template
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
	case is.Code == issues.UnrecognizedKeys && len(is.Allowed) <= fewListed:
		return allowedKeys
	case is.Code != issues.Custom && len(is.Values) <= fewListed && scalars(is.Values):
		return allowedValues
	}
	return allowedOpen
}

// fixedSet says which placeholders a plan renders: those whose text is a
// function of the facts in its key.
type fixedSet struct {
	absent  bool
	allowed allowedFacts
}

func (k fixedSet) fixed(p templates.Placeholder) bool {
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

// planKey writes everything the fixed placeholders read into dst: the
// message and its form, the facts of is, whether its field is sensitive.
// Strings are written with their length, so that no two sets of facts
// write the same key.
func planKey(dst []byte, id msgID, form templates.Form, is *issues.Issue, hidden bool, allowed allowedFacts) []byte {
	dst = append(dst, byte(id), byte(id>>8), byte(form), byte(kindOf(is.Input)),
		boolByte(hidden)|boolByte(is.Absent)<<1, byte(allowed))
	dst = appendKeyString(dst, string(is.Code))
	dst = binary.AppendUvarint(dst, uint64(is.Expected))
	dst = appendKeyString(dst, is.Origin)
	dst = appendKeyString(dst, string(is.Minimum))
	dst = appendKeyString(dst, string(is.Maximum))
	dst = appendKeyString(dst, is.Format)
	dst = appendKeyParams(dst, is)
	dst = appendKeyString(dst, string(is.Divisor))
	dst = appendKeyString(dst, is.Message)
	switch allowed {
	case allowedKeys:
		dst = binary.AppendUvarint(dst, uint64(len(is.Allowed)))
		for _, k := range is.Allowed {
			dst = appendKeyString(dst, k)
		}
	case allowedValues:
		dst = binary.AppendUvarint(dst, uint64(len(is.Values)))
		for _, v := range is.Values {
			dst = appendKeyScalar(dst, v)
		}
	}
	return dst
}

func appendKeyString(dst []byte, str string) []byte {
	if len(str) == 0 { // most facts are unset: no copy to make
		return append(dst, 0)
	}
	if len(str) < 0x80 { // the common case: its uvarint is one byte
		return append(append(dst, byte(len(str))), str...)
	}
	return append(binary.AppendUvarint(dst, uint64(len(str))), str...)
}

// appendKeyScalar writes a plain scalar (see scalars) with its type, so
// that 1 and "1" and 1.0 key differently, as they render differently.
func appendKeyScalar(dst []byte, v any) []byte {
	var tag byte
	var num []byte
	var buf [24]byte
	switch v := v.(type) {
	case nil:
		return append(dst, 0)
	case string:
		return appendKeyString(append(dst, 1), v)
	case json.Number:
		return appendKeyString(append(dst, 2), string(v))
	case issues.Number:
		return appendKeyString(append(dst, 3), string(v))
	case bool:
		return append(dst, 4, boolByte(v))
	case float64:
		tag, num = 5, binary.LittleEndian.AppendUint64(buf[:0], math.Float64bits(v))
	case float32:
		tag, num = 6, binary.LittleEndian.AppendUint32(buf[:0], math.Float32bits(v))
	case int:
		tag, num = 7, strconv.AppendInt(buf[:0], int64(v), 10)
	case int8:
		tag, num = 8, strconv.AppendInt(buf[:0], int64(v), 10)
	case int16:
		tag, num = 9, strconv.AppendInt(buf[:0], int64(v), 10)
	case int32:
		tag, num = 10, strconv.AppendInt(buf[:0], int64(v), 10)
	case int64:
		tag, num = 11, strconv.AppendInt(buf[:0], v, 10)
	case uint:
		tag, num = 12, strconv.AppendUint(buf[:0], uint64(v), 10)
	case uint8:
		tag, num = 13, strconv.AppendUint(buf[:0], uint64(v), 10)
	case uint16:
		tag, num = 14, strconv.AppendUint(buf[:0], uint64(v), 10)
	case uint32:
		tag, num = 15, strconv.AppendUint(buf[:0], uint64(v), 10)
	case uint64:
		tag, num = 16, strconv.AppendUint(buf[:0], v, 10)
	}
	return append(append(dst, tag, byte(len(num))), num...)
}

func boolByte(b bool) byte {
	if b {
		return 1
	}
	return 0
}

// scalars reports whether every value is a plain scalar, which a plan's
// key can write out (appendKeyScalar).
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

// partial returns tpl with the placeholders fixed by s.is's facts
// rendered (s.tpl and s.count set for tpl): a plan's template.
func (s *state) partial(tpl *templates.Template, allowed allowedFacts) *templates.Template {
	return tpl.Partial(s, fixedSet{absent: s.is.Absent, allowed: allowed}.fixed)
}

// appendPlanned renders message id for s.is like appendMessage, through
// the plan cache; with spans, as appendIssue says.
func (s *state) appendPlanned(dst []byte, spans *[]int, id msgID, count int64) []byte {
	m := s.m(id)
	if m == nil {
		return dst
	}
	saved := s.frame
	tpl, form := s.template(m, count)
	s.tpl, s.count = tpl, count
	if tpl := s.plan(id, form, tpl); spans != nil {
		dst, *spans = tpl.AppendSpans(dst, s, *spans)
	} else {
		dst = tpl.Append(dst, s)
	}
	s.frame = saved
	return dst
}

// plan returns the template to render for s.is: the cached partial one
// when there is one for its facts, else tpl itself.
func (s *state) plan(id msgID, form templates.Form, tpl *templates.Template) *templates.Template {
	if !planned(tpl) {
		return tpl
	}
	is := s.is
	allowed := allowedOf(tpl, is)
	s.pkey = planKey(s.pkey[:0], id, form, is, s.hidden, allowed)
	c := &s.f.plans
	c.mu.RLock()
	p := c.m[string(s.pkey)]
	c.mu.RUnlock()
	if p != nil {
		return p.tpl
	}
	h := maphash.Bytes(c.seed, s.pkey)
	if c.seen[h&(uint64(len(c.seen))-1)].Swap(h) != h {
		return tpl // first sight: perhaps a one-off, not worth a plan yet
	}
	p = &plan{tpl: s.partial(tpl, allowed)}
	c.mu.Lock()
	if len(c.m) >= maxPlans || c.m == nil {
		c.m = make(map[string]*plan, 64)
	}
	c.m[string(s.pkey)] = p
	c.mu.Unlock()
	return p.tpl
}

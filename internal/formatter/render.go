package formatter

import (
	"encoding/json"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/internal/templates"
	"github.com/selfheal/selfheal/issues"
)

// appendMessage renders m, choosing its plural form by count.
func (s *state) appendMessage(dst []byte, m *templates.Message, count int64) []byte {
	if m == nil {
		return dst
	}
	saved := s.frame
	s.tpl = s.template(m, count)
	s.count = count
	dst = s.tpl.Append(dst, s)
	s.frame = saved
	return dst
}

// template returns m's template in the plural form count chooses.
func (s *state) template(m *templates.Message, count int64) *templates.Template {
	if !m.Plural() {
		return m.Template(templates.Other) // no need to ask the plural rules
	}
	return m.Template(s.f.cat.Form(count))
}

// appendIssue renders is, with inner as the inner issue of a union, key or
// element (nil: the first one, for unions the closest alternative's).
func (s *state) appendIssue(dst []byte, is, inner *issues.Issue) []byte {
	saved := s.frame
	// Whether the field is sensitive is asked by several placeholders;
	// answer it once per issue.
	s.is, s.inner, s.hidden = is, innerOf(is, inner), s.f.redact.path(is.Path)
	if m := s.choose(is); m != nil {
		s.count = s.countOf(is)
		s.tpl = s.template(m, s.count)
		dst = s.tpl.Append(dst, s)
	}
	s.frame = saved
	return dst
}

func isIntegral(num string) bool {
	if digits := strings.TrimPrefix(num, "-"); digits != "" && strings.Trim(digits, "0123456789") == "" {
		return true
	}
	f, err := strconv.ParseFloat(num, 64)
	return err == nil && f == float64(int64(f))
}

// canonicalOrigin folds Zod's and the adapters' origins onto the catalog's
// keys, and guesses one from the value when the adapter gave none.
func canonicalOrigin(origin string, input any) string {
	switch origin {
	case "int", issues.OriginBigInt:
		return issues.OriginInteger
	case issues.OriginSet:
		return issues.OriginArray
	case issues.OriginMap, issues.OriginRecord:
		return issues.OriginObject
	case issues.OriginBytes:
		return issues.OriginFile
	case "":
		switch kindOf(input) {
		case kindString:
			return issues.OriginString
		case kindNumber:
			return issues.OriginNumber
		case kindArray:
			return issues.OriginArray
		case kindObject:
			return issues.OriginObject
		}
	}
	return origin
}

// unitKey is the catalog key of the unit that sizes of origin are counted in.
func unitKey(origin string) string {
	switch origin {
	case issues.OriginString:
		return "string"
	case issues.OriginArray:
		return "array"
	case issues.OriginObject:
		return "object"
	case issues.OriginFile:
		return "bytes"
	}
	return ""
}

// AppendPlaceholder renders one placeholder of the template being written.
// It implements templates.Filler.
func (s *state) AppendPlaceholder(dst []byte, p templates.Placeholder) []byte {
	is := s.is
	switch p {
	case templates.Sent:
		return s.appendSent(dst)
	case templates.Received:
		return s.appendType(dst, typeName[kindOf(is.Input)])
	case templates.Expected:
		if is.Expected == 0 {
			return s.appendType(dst, "any")
		}
		first := true
		for e := range is.Expected.All() {
			if !first {
				dst = s.appendMessage(dst, s.m("list.or"), 1)
			}
			first = false
			dst = s.appendType(dst, e.String())
		}
		return dst
	case templates.Size:
		return s.appendSize(dst)
	case templates.Minimum:
		return s.appendBound(dst, is.Minimum)
	case templates.Maximum:
		return s.appendBound(dst, is.Maximum)
	case templates.Format:
		if m := s.f.formatLabel(is.Format); m != nil {
			return s.appendMessage(dst, m, 1)
		}
		return s.appendQuoted(dst, is.Format)
	case templates.FormatExpected:
		return s.appendMessage(dst, s.f.formatMsg(is.Format), 1)
	case templates.Example:
		if !s.f.examples || layoutShown[is.Format] {
			return dst
		}
		ex, ok := examples[is.Format]
		switch {
		case is.Format == timeLayout && is.Layout != "":
			s.scratch = exampleTime.AppendFormat(s.scratch[:0], is.Layout)
			pv := preview{budget: len(s.scratch)}
			s.value = pv.appendBytes(s.value[:0], s.scratch, '\'')
		case !ok, s.f.shows(is.Format, ex):
			return dst
		case kindOf(is.Input) == kindNumber && issues.Number(ex).IsNumeric():
			// A number field's example is a number, not a string.
			s.value = append(s.value[:0], ex...)
		default:
			// Never cut: a cut example would not be valid.
			pv := preview{budget: len(ex)}
			s.value = pv.appendString(s.value[:0], ex, '\'')
		}
		return s.appendMessage(dst, s.m("example"), 1)
	case templates.Pattern:
		if is.Pattern != "" {
			return s.appendPattern(dst, is.Pattern)
		}
		return s.appendQuoted(dst, formatParam(is))
	case templates.Keys:
		// Keys the model sent: each cut at the value budget, its size stated.
		return s.appendList(dst, len(is.Keys), func(int) bool { return true }, func(dst []byte, i int) []byte {
			pv := preview{budget: s.f.maxRunes}
			at := len(dst)
			if dst = pv.appendString(dst, is.Keys[i], '\''); pv.truncated {
				dst = s.appendSized(dst[:at], dst[at:], is.Keys[i], s.m("value.sized"))
			}
			return dst
		})
	case templates.Suggestion:
		if is.Code == issues.UnrecognizedKeys {
			s.keySuggestions(is)
			return s.appendStrings(dst, s.sugg)
		}
		if v, ok := s.valueSuggestion(is); ok {
			return s.appendQuoted(dst, v)
		}
		return dst
	case templates.Allowed:
		if is.Code == issues.UnrecognizedKeys {
			if len(is.Allowed) > fewListed && len(is.Keys) > 0 {
				return s.appendNearest(dst, len(is.Allowed), func(i int) int {
					return keyDistance(is.Keys[0], is.Allowed[i])
				}, func(int) bool { return true }, func(dst []byte, i int) []byte { return s.appendQuoted(dst, is.Allowed[i]) })
			}
			return s.appendStrings(dst, is.Allowed)
		}
		if is.Code == issues.Custom && s.hidden {
			// The repeated items of a sensitive field are its values.
			return s.appendMessage(dst, s.m("value.hidden"), 1)
		}
		if len(is.Values) > fewListed && is.Code == issues.InvalidValue {
			return s.appendNearest(dst, len(is.Values), func(i int) int {
				return valueDistance(is.Input, is.Values[i])
			}, func(i int) bool { return kindOf(is.Values[i]) == kindString }, func(dst []byte, i int) []byte { return s.appendCut(dst, is.Values[i]) })
		}
		return s.appendList(dst, len(is.Values), func(i int) bool { return kindOf(is.Values[i]) == kindString },
			func(dst []byte, i int) []byte { return s.appendCut(dst, is.Values[i]) })
	case templates.Count:
		return strconv.AppendInt(dst, s.count, 10)
	case templates.Divisor:
		return appendInline(dst, string(is.Divisor))
	case templates.Lower:
		return append(dst, s.lower...)
	case templates.Upper:
		return append(dst, s.upper...)
	case templates.CustomMessage:
		msg := strings.TrimRight(strings.TrimSpace(is.Message), ".。")
		if limit := 4 * s.f.maxRunes; len(msg) > limit {
			// A message may quote what was sent (a library's does).
			msg = cutString(msg, limit)
		}
		return appendInline(dst, msg)
	case templates.ElementKey:
		return s.appendCut(dst, is.Key)
	case templates.Inner:
		if s.inner == nil {
			return dst
		}
		s.nesting++
		dst = s.appendIssue(dst, s.nestedIssue(), nil)
		s.nesting--
		return dst
	case templates.Unquoted:
		str, _ := is.Input.(string)
		return appendInline(dst, strings.TrimSpace(str))
	case templates.Value:
		return append(dst, s.value...)
	case templates.Field:
		if s.fieldSet {
			return append(dst, s.field...)
		}
		return s.appendRef(dst)
	case templates.Condition:
		return s.appendCondition(dst)
	}
	return dst
}

// maxNesting is how many lines a line may word inside its own before it
// goes straight to the innermost problem: worded level by level, a
// recursive schema's line would take kilobytes to say one wrong value.
const maxNesting = 3

// nestedIssue is the issue the current line words inside its own. Unions
// inside a union are passed over (they add nothing a model can act on),
// and past maxNesting levels so is everything down to the problem itself.
func (s *state) nestedIssue() *issues.Issue {
	inner := s.inner
	for inner.Code == issues.InvalidUnion && s.is.Code == issues.InvalidUnion || s.nesting >= maxNesting {
		next := innerOf(inner, nil)
		if next == nil {
			break
		}
		inner = next
	}
	return inner
}

// timeLayout is the format of a date or time in a Go layout (validator's
// datetime=<layout>); its example is exampleTime written in that layout.
const timeLayout = "time_layout"

var exampleTime = time.Date(2026, 1, 31, 9, 30, 0, 0, time.UTC)

// appendRef renders the other field of a cross-field check: its path
// quoted, then its value when known ("'password' (…)"), hidden when either
// field is sensitive, "nothing" when it was not sent.
func (s *state) appendRef(dst []byte) []byte {
	ref := s.is.Ref
	if ref == nil {
		return dst
	}
	dst = s.appendPath(dst, ref.Path)
	switch {
	case ref.Absent:
		s.value = s.appendMessage(s.value[:0], s.m("value.absent"), 1)
	case ref.Value == nil:
		return dst
	case s.f.redact.path(ref.Path) || s.hidden:
		s.value = s.appendMessage(s.value[:0], s.m("value.hidden"), 1)
	default:
		pv := preview{budget: s.f.maxRunes, redact: s.f.redact}
		s.value = pv.appendTop(s.value[:0], ref.Value)
	}
	return s.appendMessage(dst, s.m("ref.value"), 1)
}

// appendPath renders a path quoted like a value: 'mode', 'items[0].name'.
func (s *state) appendPath(dst []byte, p issues.Path) []byte {
	s.scratch = p.AppendTo(s.scratch[:0])
	pv := preview{budget: 2 * s.f.maxRunes}
	return pv.appendBytes(dst, s.scratch, '\'')
}

// appendCondition renders the condition of a conditional requirement:
// "when 'mode' is 'on'", "unless 'a' is 'x' and 'b' is 'y'", "when 'email'
// or 'phone' is sent". The fields (for equals, each with its value) are
// rendered first, then the condition's message around them as {field}.
func (s *state) appendCondition(dst []byte) []byte {
	c := s.is.When
	if c == nil {
		return dst
	}
	m := s.f.msg("condition", c.Op, "")
	if m == nil {
		return dst
	}
	s.cond = s.cond[:0]
	switch c.Op {
	case issues.CondEquals, issues.CondNotEquals:
		if len(c.Fields) > 1 && len(c.Fields) == len(c.Values) {
			for i := range c.Fields {
				if i > 0 {
					s.cond = s.appendMessage(s.cond, s.m("list.and"), 1)
				}
				s.cond = s.appendPair(s.cond, c.Fields[i], c.Values[i:i+1])
			}
		} else if len(c.Fields) > 0 {
			s.cond = s.appendPair(s.cond, c.Fields[0], c.Values)
		}
	default:
		for i, f := range c.Fields {
			if i > 0 {
				if c.Op == issues.CondPresent || c.Op == issues.CondAbsent {
					s.cond = s.appendMessage(s.cond, s.m("list.or"), 1)
				} else {
					s.cond = append(s.cond, ", "...)
				}
			}
			s.cond = s.appendPath(s.cond, f)
		}
	}
	s.field, s.fieldSet = s.cond, true
	dst = s.appendMessage(dst, m, 1)
	s.field, s.fieldSet = nil, false
	return dst
}

// appendPair renders "'field' is 'value'" (values joined by "or").
func (s *state) appendPair(dst []byte, field issues.Path, values []any) []byte {
	s.pair = s.appendPath(s.pair[:0], field)
	s.value = s.value[:0]
	for i, v := range values {
		if i > 0 {
			s.value = s.appendMessage(s.value, s.m("list.or"), 1)
		}
		pv := preview{budget: s.f.maxRunes}
		s.value = pv.appendTop(s.value, v)
	}
	s.field, s.fieldSet = s.pair, true
	dst = s.appendMessage(dst, s.m("condition.is"), 1)
	s.field, s.fieldSet = nil, false
	return dst
}

// appendSent renders the value sent: "nothing" when absent, its type and
// size when the field is sensitive, else a preview, with its size if cut.
func (s *state) appendSent(dst []byte) []byte {
	is := s.is
	if is.Absent {
		return s.appendMessage(dst, s.m("value.absent"), 1)
	}
	if u, ok := is.Input.(issues.Unknown); ok {
		// The adapter knows the kind of value sent but not the value.
		if k := kindOf(u); k != kindOther {
			return s.appendType(dst, typeName[k])
		}
		return s.appendMessage(dst, s.m("value.unknown"), 1)
	}
	if s.hidden {
		if s.tpl.Has(templates.Received) || s.tpl.Has(templates.Size) {
			return s.appendMessage(dst, s.m("value.hidden"), 1)
		}
		if _, _, ok := sizeOf(is.Input); ok {
			return s.appendMessage(dst, s.m("value.redacted"), 1)
		}
		return s.appendMessage(dst, s.m("value.redacted.unsized"), 1)
	}
	pv := preview{budget: s.f.maxRunes, redact: s.f.redact}
	start := len(dst)
	if str, ok := is.Input.(string); ok { // most values sent
		dst = pv.appendString(dst, str, '\'')
		if !pv.truncated {
			return dst
		}
	} else if kindOf(is.Input) == kindNumber && canonicalOrigin(is.Origin, nil) == issues.OriginDate {
		return s.appendBound(dst, issues.Number(numberText(is.Input)))
	} else {
		dst = pv.appendTop(dst, is.Input)
	}
	// A container shown whole states its size itself; a cut one says how
	// much was cut.
	if pv.truncated && !s.tpl.Has(templates.Size) {
		if _, _, ok := sizeOf(is.Input); ok {
			s.value = append(s.value[:0], dst[start:]...)
			return s.appendMessage(dst[:start], s.m("value.sized"), 1)
		}
	}
	return dst
}

// appendSize renders the size of the value sent with its unit.
func (s *state) appendSize(dst []byte) []byte {
	is := s.is
	origin := canonicalOrigin(is.Origin, is.Input)
	n, bytes, ok := sizeOf(is.Input)
	if origin == issues.OriginFile {
		if v, isNum := numberOf(is.Input); isNum {
			n, ok = int(v), true
		}
		bytes = true
	}
	if !ok {
		return s.appendType(dst, typeName[kindOf(is.Input)])
	}
	unit := unitKey(origin)
	if bytes {
		unit = "bytes"
	} else if unit == "" || unit == "bytes" {
		switch kindOf(is.Input) {
		case kindString:
			unit = "string"
		case kindArray:
			unit = "array"
		case kindObject:
			unit = "object"
		}
	}
	return s.appendUnit(dst, unit, int64(n))
}

func (s *state) appendUnit(dst []byte, unit string, n int64) []byte {
	if u := slices.Index(units[:], unit); u >= 0 && n >= 0 && n < smallCounts {
		return append(dst, s.f.units[u][n]...)
	}
	return s.appendMessage(dst, s.f.msg("unit", unit, ""), n)
}

// units are the units whose small counts ("3 characters") New renders
// once: rendering them each time was 1,070 of the validator pair's (c)
// 18,750 instructions a call (DESIGN 5's budget of 1 × Error()).
var units = [...]string{"string", "array", "object", "bytes"}

const smallCounts = 64

// appendBound renders a bound: with its unit for sizes, as an ISO 8601
// timestamp for dates given in epoch milliseconds, else exactly as written.
func (s *state) appendBound(dst []byte, b issues.Number) []byte {
	origin := canonicalOrigin(s.is.Origin, s.is.Input)
	if unit := unitKey(origin); unit != "" {
		if n, ok := issuesx.Int(b); ok {
			return s.appendUnit(dst, unit, n)
		}
	}
	if origin == issues.OriginDate {
		if ms, ok := issuesx.Int(b); ok {
			return time.UnixMilli(ms).UTC().AppendFormat(dst, time.RFC3339)
		}
	}
	return appendInline(dst, string(b))
}

// appendType renders a type name as the catalog's phrase ("an integer"),
// or as the bare name when the catalog has no phrase for it.
func (s *state) appendType(dst []byte, name string) []byte {
	if m := s.f.msg("type", name, ""); m != nil {
		return s.appendMessage(dst, m, 1)
	}
	return appendInline(dst, name)
}

func (s *state) appendQuoted(dst []byte, str string) []byte {
	pv := preview{budget: 2 * s.f.maxRunes}
	return pv.appendString(dst, str, '\'')
}

// appendPattern renders a regular expression quoted as its schema wrote
// it ('^\d{5}$', not '^\\d{5}$'), control characters escaped, which a
// pattern reads the same. A pattern cut at the budget says its length.
func (s *state) appendPattern(dst []byte, pattern string) []byte {
	pv := preview{budget: 2 * s.f.maxRunes, verbatim: true}
	start := len(dst)
	dst = pv.appendString(dst, pattern, '\'')
	if !pv.truncated {
		return dst
	}
	return s.appendSized(dst[:start], dst[start:], pattern, s.m("value.sized"))
}

// appendCut renders v, a key or value the model sent, within the value
// budget, and states its real size when it was cut ("'aaaa…' (5000
// characters)").
func (s *state) appendCut(dst []byte, v any) []byte {
	pv := preview{budget: s.f.maxRunes, redact: s.f.redact}
	start := len(dst)
	dst = pv.appendTop(dst, v)
	if !pv.truncated {
		return dst
	}
	if _, _, ok := sizeOf(v); !ok {
		return dst
	}
	return s.appendSized(dst[:start], dst[start:], v, s.m("value.sized"))
}

// appendSized appends text, the cut rendering of v, with v's size in the
// words of m ("{value} ({size})", value.sized). m's placeholders read the
// issue's value: v stands in for it meanwhile.
func (s *state) appendSized(dst, text []byte, v any, m *templates.Message) []byte {
	saved, saveValue := s.frame, s.value
	s.is, s.value = &issues.Issue{Input: v}, append([]byte(nil), text...)
	dst = s.appendMessage(dst, m, 1)
	s.frame, s.value = saved, saveValue
	return dst
}

// appendListSep separates two items of a list: a comma alone between two
// quoted strings ('a','b' costs fewer tokens than 'a', 'b'), a comma and a
// space around anything else (1, 2.5 must not read as one number).
func appendListSep(dst []byte, nextQuoted bool) []byte {
	if nextQuoted && len(dst) > 0 && dst[len(dst)-1] == '\'' {
		return append(dst, ',')
	}
	return append(dst, ", "...)
}

// appendList lists n items, write writing item i, shortened after
// maxListed or when the list outgrows its bytes (see listFull). quoted
// reports whether item i is a quoted string (see appendListSep).
func (s *state) appendList(dst []byte, n int, quoted func(i int) bool, write func(dst []byte, i int) []byte) []byte {
	start := len(dst)
	for i := range n {
		if s.listFull(i, len(dst)-start) {
			return s.appendMessage(dst, s.m("list.more"), int64(n-i))
		}
		if i > 0 {
			dst = appendListSep(dst, quoted(i))
		}
		dst = write(dst, i)
	}
	return dst
}

// appendStrings lists strings quoted.
func (s *state) appendStrings(dst []byte, list []string) []byte {
	return s.appendList(dst, len(list), func(int) bool { return true },
		func(dst []byte, i int) []byte { return s.appendQuoted(dst, list[i]) })
}

// listFull reports whether a list that has n items written in size bytes
// stops there: after maxListed items, or once longer than a few values at
// their budget (ten huge keys must not make one line outgrow the output).
func (s *state) listFull(n, size int) bool {
	return n == maxListed || (n > 0 && size > 8*s.f.maxRunes)
}

// keySuggestions finds, once per issue, the closest allowed key for each
// unrecognized key, and reports whether any key has one.
func (s *state) keySuggestions(is *issues.Issue) bool {
	if s.suggFor != is {
		s.suggFor = is
		s.sugg = s.sugg[:0]
		// Only the keys the line lists: 100,000 unknown keys must not
		// cost 100,000 searches.
		for _, k := range is.Keys[:min(len(is.Keys), maxListed)] {
			if c, ok := nearmiss.Closest(k, is.Allowed); ok {
				s.sugg = append(s.sugg, c)
			}
		}
	}
	return len(s.sugg) > 0
}

// valueSuggestion finds the allowed string value closest to the string
// sent.
func (s *state) valueSuggestion(is *issues.Issue) (string, bool) {
	sent, ok := is.Input.(string)
	if !ok || s.hidden {
		return "", false
	}
	var buf [32]string
	opts := buf[:0]
	for _, v := range is.Values {
		if str, ok := v.(string); ok {
			opts = append(opts, str)
		}
	}
	return nearmiss.Closest(sent, opts)
}

// bestBranch is the alternative of a union a line shows: the one
// nearmiss.Chosen picks.
func bestBranch(is *issues.Issue) []issues.Issue {
	best, _, _ := nearmiss.Chosen(is)
	if best < 0 {
		return nil
	}
	return is.Branches[best]
}

// numberText returns the decimal text of a numeric value.
func numberText(v any) string {
	switch n := v.(type) {
	case json.Number:
		return string(n)
	case string:
		return n
	}
	var buf [32]byte
	pv := preview{budget: 64}
	return string(pv.appendValue(buf[:0], v, 0))
}

func numberOf(v any) (float64, bool) {
	if kindOf(v) != kindNumber {
		return 0, false
	}
	f, err := strconv.ParseFloat(numberText(v), 64)
	return f, err == nil
}

// multiples computes, exactly, the nearest multiples of the divisor below
// and above the value sent (0.35 and 0.1 give 0.3 and 0.4), keeping only
// those the issue's Minimum and Maximum allow (multipleOf 2 up to 20, sent
// 25, is answered "such as 20"). What it keeps is in s.lower, then
// s.upper, empty when one is kept. It reports false when none can be shown.
func (s *state) multiples(is *issues.Issue) bool {
	s.lower, s.upper = s.lower[:0], s.upper[:0]
	if kindOf(is.Input) != kindNumber || !is.Divisor.IsNumeric() {
		return false
	}
	vt := numberText(is.Input)
	if !modest(vt) || !modest(string(is.Divisor)) {
		// 1e1000000 would take a million digits to write, and long to
		// work out: the line says what is wrong without the neighbours.
		return false
	}
	v, ok1 := new(big.Rat).SetString(vt)
	d, ok2 := new(big.Rat).SetString(string(is.Divisor))
	if !ok1 || !ok2 || d.Sign() <= 0 {
		return false
	}
	lo := new(big.Rat).Mul(new(big.Rat).SetInt(floorRat(new(big.Rat).Quo(v, d))), d)
	hi := new(big.Rat).Add(lo, d)
	if is.Minimum == "" && is.Maximum == "" {
		s.lower = appendRat(s.lower, lo)
		s.upper = appendRat(s.upper, hi)
		return true
	}
	// The field's bounds, when they are numbers short enough to work with:
	// a bound that is not is no bound here (the line may then suggest a
	// value it refuses, as it did before bounds were known).
	var minR, maxR *big.Rat
	if modest(string(is.Minimum)) {
		minR, _ = new(big.Rat).SetString(string(is.Minimum))
	}
	if modest(string(is.Maximum)) {
		maxR, _ = new(big.Rat).SetString(string(is.Maximum))
	}
	allowed := func(x *big.Rat) bool {
		if minR != nil && (x.Cmp(minR) < 0 || x.Cmp(minR) == 0 && !is.Inclusive) {
			return false
		}
		return maxR == nil || x.Cmp(maxR) < 0 || x.Cmp(maxR) == 0 && is.Inclusive
	}
	loOK, hiOK := allowed(lo), allowed(hi)
	switch {
	case loOK && hiOK:
		s.lower = appendRat(s.lower, lo)
		s.upper = appendRat(s.upper, hi)
		return true
	case loOK:
		s.lower = appendRat(s.lower, lo)
		return true
	case hiOK:
		s.lower = appendRat(s.lower, hi)
		return true
	}
	// Neither neighbour is allowed: the value is past a bound, and the
	// multiple to suggest is the one nearest that bound, inside it.
	var x *big.Rat
	switch {
	case maxR != nil && hi.Cmp(maxR) >= 0:
		x = new(big.Rat).Mul(new(big.Rat).SetInt(floorRat(new(big.Rat).Quo(maxR, d))), d)
		if !allowed(x) {
			x.Sub(x, d)
		}
	case minR != nil && lo.Cmp(minR) <= 0:
		x = new(big.Rat).Mul(new(big.Rat).SetInt(floorRat(new(big.Rat).Quo(minR, d))), d)
		for !allowed(x) && x.Cmp(minR) <= 0 {
			x.Add(x, d)
		}
	}
	if x == nil || !allowed(x) {
		return false // no multiple lies within the bounds
	}
	s.lower = appendRat(s.lower, x)
	return true
}

// floorRat is the greatest integer not above q.
func floorRat(q *big.Rat) *big.Int {
	fl := new(big.Int).Quo(q.Num(), q.Denom())
	if q.Sign() < 0 && !q.IsInt() {
		fl.Sub(fl, big.NewInt(1))
	}
	return fl
}

// modest reports whether the number literal num is short and its exponent
// small, so that exact arithmetic on it stays cheap and its results short.
func modest(num string) bool {
	if len(num) > 40 {
		return false
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		e, err := strconv.Atoi(strings.TrimPrefix(num[i+1:], "+"))
		return err == nil && e >= -40 && e <= 40
	}
	return true
}

// appendRat writes r as the shortest exact decimal (up to 30 places).
func appendRat(dst []byte, r *big.Rat) []byte {
	if r.IsInt() {
		return r.Num().Append(dst, 10)
	}
	for prec := 1; prec <= 30; prec++ {
		str := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(str); ok && back.Cmp(r) == 0 {
			return append(dst, str...)
		}
	}
	return append(dst, r.FloatString(30)...)
}

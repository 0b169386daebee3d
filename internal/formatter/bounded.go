package formatter

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// The issues a result carries beside the text (an MCP result's
// structuredContent) are one per line of the text, made by the same pass
// (run), so that what the text merges, cuts or counts, they merge, cut and
// count too. Each is a copy without the value sent (a value may be a
// secret; the text shows every value that may be shown), bounded like the
// text whatever the model sent: keys cut as field names are, deep paths
// shortened in the middle, lists kept to their first ten, messages cut,
// and no more issues than fit the byte budget as encoding/json writes them
// (the first always, without its inner issues if they do not fit).

// lineIssue is the issue the line of is (with inner as its inner issue)
// words, before bound copies it. is may be the state's own (a merged
// line's, whose lists the next merged line reuses).
func lineIssue(is, inner *issues.Issue) issues.Issue {
	switch {
	case inner != nil && is.Code == issues.InvalidUnion:
		return *inner
	case inner != nil && (is.Code == issues.InvalidKey || is.Code == issues.InvalidElement) && len(is.Issues) > 1:
		out := *is
		out.Issues = []issues.Issue{*inner}
		return out
	}
	return *is
}

// fit returns the first of the bounded issues out that fit the byte budget
// as encoding/json writes them, the first always (without its inner issues
// when they do not fit). When their bound fits (nearly always: a few
// issues of short strings) it encodes nothing: encoding them to measure
// was a quarter of a bad call's cost at dispatch in the go-sdk
// integration (21 µs of 87; DESIGN section 5: ≤ 1 × the SDK's own check).
func (f *Formatter) fit(out issues.List) issues.List {
	size := 0
	for k := range out {
		size += jsonBound(&out[k])
	}
	if size <= f.maxBytes {
		return out
	}
	size = 0
	for k := range out {
		data, _ := out[k].MarshalJSON() // never fails; encoding/json's Marshal would only add a compaction pass
		if k == 0 && len(data) > f.maxBytes && (out[0].Issues != nil || out[0].Branches != nil) {
			// The first issue is kept whatever its size, but not its
			// inner issues: ten alternatives of ten issues each would
			// take tens of kilobytes, and the issue says what failed.
			out[0].Issues, out[0].Branches = nil, nil
			data, _ = out[0].MarshalJSON()
		}
		if k > 0 && size+len(data) > f.maxBytes {
			return out[:k]
		}
		size += len(data)
	}
	return out
}

// jsonBound is the most an issue's JSON (Issue.MarshalJSON) can take: 16
// bytes for each member's name and punctuation and its value's bound, and
// 200 for the code, the expected types, the booleans and the brackets.
// TestJSONBound holds it to every field of issues.Issue.
func jsonBound(is *issues.Issue) int {
	n := 200
	for _, s := range [...]string{is.Origin, is.Format, is.Pattern, is.Prefix, is.Suffix, is.Includes,
		is.Layout, is.Country, is.UniqueBy, is.Param, is.Message, is.Check, is.Source,
		string(is.Minimum), string(is.Maximum), string(is.Divisor)} {
		n += 16 + jsonStringBound(s)
	}
	for _, el := range is.Path {
		n += 1 + valueBound(el)
	}
	for _, list := range [...][]string{is.Keys, is.Allowed} {
		for _, s := range list {
			n += 1 + jsonStringBound(s)
		}
	}
	for _, v := range is.Values {
		n += 1 + valueBound(v)
	}
	n += 16 + valueBound(is.Key)
	if !is.Absent {
		n += 16 + valueBound(is.Input)
	}
	if is.Ref != nil || is.When != nil { // rare: only cross-field rules have them
		n += 32 + valueBound(is.Ref) + valueBound(is.When)
	}
	for k := range is.Issues {
		n += 1 + jsonBound(&is.Issues[k])
	}
	for _, br := range is.Branches {
		for k := range br {
			n += 1 + jsonBound(&br[k])
		}
		n += 3
	}
	return n
}

// jsonStringBound is the most a string's JSON can take: quotes, and a
// six-byte escape (\u00XX, \ufffd, \u2028) for every byte.
func jsonStringBound(s string) int { return 2 + 6*len(s) }

// valueBound is the most v's JSON can take: a bound for the scalars an
// issue holds, the length encoding/json writes for anything else.
func valueBound(v any) int {
	switch v := v.(type) {
	case nil, bool:
		return len("false")
	case string:
		return jsonStringBound(v)
	case json.Number:
		return max(len(v), len("null"))
	case int, int64, uint64:
		return len("-9223372036854775808")
	case float64:
		return len("-1.2345678901234567e-308")
	}
	data, _ := json.Marshal(v)
	return len(data)
}

// bound bounds *is, a copy (see Fields), in place: an issue is 488
// bytes, and copying it in and out took a tenth of a bad call's answer.
// depth counts the issues it sits in, past which inner issues are left out.
func (s *state) bound(is *issues.Issue, depth int) {
	is.Input, is.Absent = nil, true // Absent only omits "input" from the JSON
	is.Path = s.boundPath(is.Path)
	if k, ok := is.Key.(string); ok && len(k) > s.f.maxRunes {
		is.Key = s.cutKey(k)
	}
	is.Keys = s.boundStrings(is.Keys)
	is.Allowed = s.boundStrings(is.Allowed)
	if len(is.Values) > 0 {
		vals := make([]any, min(len(is.Values), maxListed))
		for i := range vals {
			vals[i] = s.boundValue(is.Values[i])
		}
		is.Values = vals
	}
	if limit := 4 * s.f.maxRunes; len(is.Message) > limit {
		is.Message = cutString(is.Message, limit)
	}
	if is.Ref != nil {
		r := *is.Ref
		r.Value = nil
		r.Path = s.boundPath(r.Path)
		is.Ref = &r
	}
	if depth >= 2 {
		// Two levels of alternatives say what went wrong; more only grow.
		is.Issues, is.Branches = nil, nil
		return
	}
	is.Issues = s.boundList(is.Issues, depth)
	if is.Branches != nil {
		br := make([][]issues.Issue, min(len(is.Branches), maxListed))
		for i := range br {
			br[i] = s.boundList(is.Branches[i], depth)
		}
		is.Branches = br
	}
}

func (s *state) boundList(list []issues.Issue, depth int) []issues.Issue {
	if list == nil {
		return nil
	}
	out := make([]issues.Issue, 0, min(len(list), maxListed))
	for i := range list {
		if len(out) == maxListed {
			break
		}
		if list[i].Check != issuesx.CheckOmitted {
			out = append(out, list[i])
			s.bound(&out[len(out)-1], depth+1)
		}
	}
	return out
}

// boundPath returns p with its long keys cut and, when its JSON could
// take more than a field name may (maxName), its middle elements left out
// for one "…" as cutName leaves them out of a name. It returns p itself
// when nothing is cut.
func (s *state) boundPath(p issues.Path) issues.Path {
	out := p
	if i := s.longKey(p); i >= 0 {
		out = slices.Clone(p)
		for ; i < len(out); i++ {
			if k, ok := out[i].(string); ok && len(k) > s.f.maxRunes {
				out[i] = s.cutKey(k)
			}
		}
	}
	limit, total := s.f.maxName(), 0
	for _, el := range out {
		total += 1 + valueBound(el)
	}
	if len(out) <= 3 || total <= limit {
		return out
	}
	used := 1 + valueBound(out[0]) + 1 + jsonStringBound("…")
	j := len(out) - 1 // the last element is always kept
	used += 1 + valueBound(out[j])
	for j > 2 && used+1+valueBound(out[j-1]) <= limit {
		j--
		used += 1 + valueBound(out[j])
	}
	cut := make(issues.Path, 0, 2+len(out)-j)
	return append(append(cut, out[0], "…"), out[j:]...)
}

// boundStrings returns the first maxListed of list, each long one cut.
func (s *state) boundStrings(list []string) []string {
	if list == nil {
		return nil
	}
	out := slices.Clone(list[:min(len(list), maxListed)])
	for i, v := range out {
		if len(v) > s.f.maxRunes {
			out[i] = s.cutKey(v)
		}
	}
	return out
}

// boundValue returns v when it is a scalar, cut when a long string, and its
// preview text when it is anything else (a repeated object a model sent).
func (s *state) boundValue(v any) any {
	switch v := v.(type) {
	case nil, bool, float64, float32, int, int64, int32, uint64:
		return v
	case json.Number:
		if len(v) > s.f.maxRunes {
			return s.cutKey(string(v))
		}
	case string:
		if len(v) > s.f.maxRunes {
			return s.cutKey(v)
		}
	default:
		pv := preview{budget: s.f.maxRunes, redact: s.f.redact}
		return string(pv.appendValue(nil, v, 0))
	}
	return v // the value as it came: boxing it again would allocate
}

// cutString cuts s to at most limit bytes at a rune boundary, with an
// ellipsis.
func cutString(s string, limit int) string {
	end := limit
	for end > 0 && !utf8.RuneStart(s[end]) {
		end--
	}
	return s[:end] + "…"
}

package formatter

import (
	"encoding/json"
	"slices"
	"unicode/utf8"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// Bounded returns the issues as a result carries them beside the text (an
// MCP result's structuredContent): copies in display order, without the
// values sent, and bounded like the text whatever the model sent. Every key
// a model sent (in paths, unrecognized keys, the key of invalid_key) is cut
// as field names are; every list (keys, allowed names and values, inner
// issues, union alternatives) keeps its first ten; messages are cut at a
// few values' length; and no more issues are kept than the formatter's
// issue budget, nor than fit its byte budget as encoding/json writes them
// (the first is always kept). Issues an adapter only counted are dropped.
// list is not modified.
//
// The values sent are left out as Zod leaves them out unless asked
// (reportInput): a value may be a secret, and the text already shows every
// value that may be shown, redacted where the field is sensitive.
func (f *Formatter) Bounded(list issues.List) issues.List {
	if len(list) == 0 {
		return nil
	}
	s := f.get()
	defer f.put(s)
	var small [16]int // a usual list's order, without allocating
	order := small[:0]
	if len(list) > len(small) {
		order = make([]int, 0, len(list))
	}
	for i := range list {
		if list[i].Check != issuesx.CheckOmitted {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return issuesx.Compare(&list[a], &list[b]) })
	out := make(issues.List, 0, min(len(order), f.maxIssues))
	size := 0
	for _, i := range order {
		if len(out) == f.maxIssues {
			break
		}
		is := s.bound(list[i], 0)
		data, _ := is.MarshalJSON() // never fails; encoding/json's Marshal would only add a compaction pass
		if len(out) > 0 && size+len(data) > f.maxBytes {
			break
		}
		size += len(data)
		out = append(out, is)
	}
	return out
}

// bound returns a bounded copy of is (see Bounded); depth counts the
// issues it sits in, past which inner issues are left out.
func (s *state) bound(is issues.Issue, depth int) issues.Issue {
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
		return is
	}
	is.Issues = s.boundList(is.Issues, depth)
	if is.Branches != nil {
		br := make([][]issues.Issue, min(len(is.Branches), maxListed))
		for i := range br {
			br[i] = s.boundList(is.Branches[i], depth)
		}
		is.Branches = br
	}
	return is
}

func (s *state) boundList(list []issues.Issue, depth int) []issues.Issue {
	if list == nil {
		return nil
	}
	out := make([]issues.Issue, 0, min(len(list), maxListed))
	for _, is := range list {
		if len(out) == maxListed {
			break
		}
		if is.Check != issuesx.CheckOmitted {
			out = append(out, s.bound(is, depth+1))
		}
	}
	return out
}

// boundPath returns p with its long keys cut, p itself when none is.
func (s *state) boundPath(p issues.Path) issues.Path {
	i := s.longKey(p)
	if i < 0 {
		return p
	}
	out := slices.Clone(p)
	for ; i < len(out); i++ {
		if k, ok := out[i].(string); ok && len(k) > s.f.maxRunes {
			out[i] = s.cutKey(k)
		}
	}
	return out
}

// boundStrings returns the first maxListed of list, each long one cut.
func (s *state) boundStrings(list []string) []string {
	if list == nil {
		return nil
	}
	n := min(len(list), maxListed)
	long := false
	for _, v := range list[:n] {
		long = long || len(v) > s.f.maxRunes
	}
	if !long {
		return list[:n:n]
	}
	out := make([]string, n)
	for i, v := range list[:n] {
		out[i] = v
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

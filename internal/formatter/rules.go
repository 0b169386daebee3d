package formatter

import (
	"encoding/json"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// rule is one line of the table that words an issue: an issue of code (any
// code when code is "") for which when holds (always when when is nil) is
// worded by message id; or, when pick is set, by the id pick finds from the
// issue's facts (an origin, a format, a check), msgNone meaning that the
// rule does not apply.
//
// Some predicates also work out what the chosen message's placeholders
// show (the suggestions, the neighbouring multiples): they run once per
// issue, before its line is written.
type rule struct {
	code issues.Code
	when func(s *state, is *issues.Issue) bool
	id   msgID
	pick func(s *state, is *issues.Issue) msgID
}

// rules words every issue: the first rule that applies, read top to
// bottom, gives its message. The last rule applies to every issue.
var rules = [...]rule{
	{code: issues.InvalidType, when: missingWhen, id: msgInvalidTypeMissingWhen},
	// A union's discriminator not sent: the values that choose an
	// alternative are what to send.
	{code: issues.InvalidType, when: missingValues, id: msgInvalidTypeMissingValues},
	{code: issues.InvalidType, when: absent, id: msgInvalidTypeMissing},
	{code: issues.InvalidType, when: unknownInput, id: msgInvalidTypeUnknown},
	{code: issues.InvalidType, pick: typeHint}, // "42" for 42, an object sent as JSON text
	// A union's types, an object with the keys its alternatives require.
	{code: issues.InvalidType, when: objectKeys, id: msgInvalidTypeObjectKeys},
	{code: issues.InvalidType, id: msgInvalidType},

	{code: issues.TooSmall, when: refExclusive, id: msgTooSmallRefExclusive},
	{code: issues.TooSmall, when: refInclusive, id: msgTooSmallRef},
	{code: issues.TooSmall, pick: emptyString}, // '' needs no "(0 characters)"
	{code: issues.TooSmall, pick: byOrigin},    // too_small.<origin>[.exact|.exclusive]
	{code: issues.TooSmall, when: exact, id: msgTooSmallExact},
	{code: issues.TooSmall, when: exclusive, id: msgTooSmallExclusive},
	{code: issues.TooSmall, id: msgTooSmall},

	{code: issues.TooBig, when: refExclusive, id: msgTooBigRefExclusive},
	{code: issues.TooBig, when: refInclusive, id: msgTooBigRef},
	{code: issues.TooBig, pick: byOrigin}, // too_big.<origin>[.exact|.exclusive]
	{code: issues.TooBig, when: exact, id: msgTooBigExact},
	{code: issues.TooBig, when: exclusive, id: msgTooBigExclusive},
	{code: issues.TooBig, id: msgTooBig},

	{code: issues.InvalidFormat, pick: formatRef},   // invalid_format.<format>.ref
	{code: issues.InvalidFormat, pick: namedFormat}, // invalid_format.<format>
	{code: issues.InvalidFormat, when: unnamedFormat, id: msgInvalidFormatUnnamed},
	{code: issues.InvalidFormat, when: describedFormat, id: msgInvalidFormat},
	{code: issues.InvalidFormat, id: msgInvalidFormatOther},

	{code: issues.NotMultipleOf, pick: multiples}, // not_multiple_of[.one]
	{code: issues.NotMultipleOf, id: msgNotMultipleOfPlain},

	// An open schema: the keys were accepted, and will be ignored. Allowed
	// holds what the keys stand for, not the "only" keys.
	// A misspelt key and the required field it should have been are one
	// line, at the field (see merges): its inner issue is the missing one.
	{code: issues.UnrecognizedKeys, when: misspeltField, id: msgUnrecognizedKeysMissing},
	{code: issues.UnrecognizedKeys, when: nearMiss, id: msgUnrecognizedKeysNearMiss},
	{code: issues.UnrecognizedKeys, when: keySuggested, id: msgUnrecognizedKeysSuggest},
	{code: issues.UnrecognizedKeys, when: keysAllowed, id: msgUnrecognizedKeysAllowed},
	{code: issues.UnrecognizedKeys, id: msgUnrecognizedKeys},

	{code: issues.InvalidValue, when: notRef, id: msgInvalidValueNotRef},
	{code: issues.InvalidValue, when: notValues, id: msgInvalidValueNot},
	{code: issues.InvalidValue, when: hasRef, id: msgInvalidValueRef},
	{code: issues.InvalidValue, when: noValues, id: msgInvalidValueNone},
	{code: issues.InvalidValue, when: oneValue, id: msgInvalidValueSingle},
	{code: issues.InvalidValue, when: valueSuggested, id: msgInvalidValueSuggest},
	{code: issues.InvalidValue, id: msgInvalidValue},

	{code: issues.InvalidUnion, when: noInner, id: msgInvalidUnionBare},
	{code: issues.InvalidUnion, id: msgInvalidUnion},
	{code: issues.InvalidKey, when: noInner, id: msgInvalidKeyBare},
	{code: issues.InvalidKey, id: msgInvalidKey},
	{code: issues.InvalidElement, when: noInner, id: msgInvalidElementBare},
	{code: issues.InvalidElement, id: msgInvalidElement},

	{code: issues.Custom, pick: byCheck}, // custom.<check>[.<variant>]
	// A library's own message, relayed without the value (jsonschema v5's
	// errors): it says what was sent.
	{code: issues.Custom, when: relayed, id: msgCustomUnknown},
	{code: issues.Custom, when: hasMessage, id: msgCustom},

	{id: msgCustomBare},
}

// codeRules are the rules that can apply to each code, in table order,
// by codeIndex.
var codeRules = func() (m [len(ruleCodes) + 1][]rule) {
	for _, r := range rules {
		if r.code != "" {
			i := codeIndex(r.code)
			m[i] = append(m[i], r)
		}
	}
	for i := range m {
		m[i] = append(m[i], rules[len(rules)-1])
	}
	return m
}()

// ruleCodes are the codes the table words; any other code gets the last rule.
var ruleCodes = [...]issues.Code{issues.InvalidType, issues.TooSmall, issues.TooBig,
	issues.InvalidFormat, issues.NotMultipleOf, issues.UnrecognizedKeys, issues.InvalidValue,
	issues.InvalidUnion, issues.InvalidKey, issues.InvalidElement, issues.Custom}

// codeIndex is the index of code in ruleCodes, len(ruleCodes) for others.
func codeIndex(code issues.Code) int {
	switch code {
	case issues.InvalidType:
		return 0
	case issues.TooSmall:
		return 1
	case issues.TooBig:
		return 2
	case issues.InvalidFormat:
		return 3
	case issues.NotMultipleOf:
		return 4
	case issues.UnrecognizedKeys:
		return 5
	case issues.InvalidValue:
		return 6
	case issues.InvalidUnion:
		return 7
	case issues.InvalidKey:
		return 8
	case issues.InvalidElement:
		return 9
	case issues.Custom:
		return 10
	}
	return len(ruleCodes)
}

// choose returns the message id of is: the first rule of the table that
// applies. s.inner must be set (see innerOf).
func (s *state) choose(is *issues.Issue) msgID {
	rs := codeRules[codeIndex(is.Code)]
	for i := range rs {
		r := &rs[i]
		switch {
		case r.pick != nil:
			if id := r.pick(s, is); id != msgNone {
				return id
			}
		case r.when == nil || r.when(s, is):
			return r.id
		}
	}
	return msgCustomBare // not reached: the last rule always applies
}

// innerOf returns the issue a line of is words inside its own: the given
// one, else for a union the closest alternative's first issue, for a key,
// an element or a content check the first inner issue.
func innerOf(is, inner *issues.Issue) *issues.Issue {
	if inner != nil {
		return inner
	}
	switch is.Code {
	case issues.InvalidUnion:
		if best := bestBranch(is); len(best) > 0 {
			return &best[0]
		}
	case issues.InvalidKey, issues.InvalidElement:
		if len(is.Issues) > 0 {
			return &is.Issues[0]
		}
	case issues.Custom:
		if is.Check == issues.CheckContent && len(is.Issues) > 0 {
			return &is.Issues[0]
		}
	}
	return nil
}

// countOf is the count that selects the plural form of message id for is.
func countOf(id msgID, is *issues.Issue) int64 {
	switch {
	case is.Code == issues.UnrecognizedKeys:
		return int64(len(is.Keys))
	case id == msgInvalidUnion:
		return int64(len(is.Branches))
	}
	return 1
}

// The predicates and pickers of the table.

func missingWhen(_ *state, is *issues.Issue) bool  { return is.Absent && is.When != nil }
func absent(_ *state, is *issues.Issue) bool       { return is.Absent }
func unknownInput(_ *state, is *issues.Issue) bool { _, ok := is.Input.(issues.Unknown); return ok }
func hasRef(_ *state, is *issues.Issue) bool       { return is.Ref != nil }
func exact(_ *state, is *issues.Issue) bool        { return is.Exact }
func exclusive(_ *state, is *issues.Issue) bool    { return !is.Exact && !is.Inclusive }
func refExclusive(_ *state, is *issues.Issue) bool { return is.Ref != nil && exclusive(nil, is) }
func refInclusive(_ *state, is *issues.Issue) bool { return is.Ref != nil && !is.Exact }
func unnamedFormat(_ *state, is *issues.Issue) bool {
	return is.Format == ""
}
func describedFormat(s *state, is *issues.Issue) bool { return s.f.formatMsg(is.Format) != nil }
func misspeltField(s *state, _ *issues.Issue) bool    { return s.inner != nil }
func nearMiss(_ *state, is *issues.Issue) bool        { return is.Check == issues.CheckNearMiss }
func keySuggested(s *state, is *issues.Issue) bool    { return s.keySuggestions(is) }
func keysAllowed(_ *state, is *issues.Issue) bool     { return len(is.Allowed) > 0 }
func notRef(_ *state, is *issues.Issue) bool {
	return is.Check == issues.CheckNot && is.Ref != nil
}
func notValues(_ *state, is *issues.Issue) bool {
	return is.Check == issues.CheckNot && len(is.Values) > 0
}
func missingValues(_ *state, is *issues.Issue) bool {
	return is.Absent && is.When == nil && len(is.Values) > 1
}
func noValues(_ *state, is *issues.Issue) bool { return len(is.Values) == 0 }
func oneValue(_ *state, is *issues.Issue) bool { return len(is.Values) == 1 }

// valueSuggested: a list of up to fewListed values is written whole, so
// the suggestion would only say again one of the values it shows; a longer
// list is cut to the nearest few, and the suggestion leads.
func valueSuggested(s *state, is *issues.Issue) bool {
	if len(is.Values) <= fewListed {
		return false
	}
	_, ok := s.valueSuggestion(is)
	return ok
}
func noInner(s *state, _ *issues.Issue) bool { return s.inner == nil }
func hasMessage(_ *state, is *issues.Issue) bool {
	return strings.TrimSpace(is.Message) != ""
}
func relayed(_ *state, is *issues.Issue) bool {
	u, ok := is.Input.(issues.Unknown)
	return ok && u.Type == "" && hasMessage(nil, is)
}

// objectKeys: an object expected, with the keys it requires (a union's
// types line, see typesOfUnion).
func objectKeys(_ *state, is *issues.Issue) bool {
	return len(is.Keys) > 0 && is.Expected.Has(issues.TypeObject)
}

// multiples words a number that is not a multiple with the nearest
// multiples the field allows: two, or one when its bounds allow one of
// them (see state.multiples).
func multiples(s *state, is *issues.Issue) msgID {
	switch {
	case !s.multiples(is):
		return msgNone
	case len(s.upper) == 0:
		return msgNotMultipleOfOne
	}
	return msgNotMultipleOf
}

// emptyString words an empty string that is too short without its size:
// "You sent: ”. Expected at least 1 character." (” shows it has none).
func emptyString(s *state, is *issues.Issue) msgID {
	if str, ok := is.Input.(string); !ok || str != "" || s.hidden {
		return msgNone
	}
	switch {
	case is.Exact:
		return msgTooSmallExact
	case !is.Inclusive:
		return msgTooSmallExclusive
	}
	return msgTooSmall
}

// byOrigin words a size by what was measured: too_small.string.exact.
func byOrigin(_ *state, is *issues.Issue) msgID {
	variant := ""
	switch {
	case is.Exact:
		variant = "exact"
	case !is.Inclusive:
		variant = "exclusive"
	}
	origin := canonicalOrigin(is.Origin, is.Input)
	if origin == "" {
		return msgNone
	}
	if is.Code == issues.TooBig {
		return tooBigFamily.id(origin, variant)
	}
	return tooSmallFamily.id(origin, variant)
}

// formatRef words a format check against another field.
func formatRef(_ *state, is *issues.Issue) msgID {
	if is.Ref == nil || is.Format == "" {
		return msgNone
	}
	return formatFamily.id(is.Format, "ref")
}

// namedFormat words the formats whose line differs from the generic one.
// JSON Schema's format "regex" (the value must be a regex, no pattern) is
// not the pattern check "regex".
func namedFormat(_ *state, is *issues.Issue) msgID {
	switch f := is.Format; {
	case f == "", f == "other", f == "unnamed", f == "regex" && is.Pattern == "":
		return msgNone
	default:
		return formatFamily.id(f, "")
	}
}

// byCheck words a custom issue by its check, refined by the facts it
// carries: custom.contains.between, custom.unique.by.
func byCheck(s *state, is *issues.Issue) msgID {
	variant := ""
	switch is.Check {
	case "":
		return msgNone
	case issues.CheckContains:
		switch {
		case is.Minimum != "" && is.Minimum == is.Maximum:
			variant = "exact"
		case is.Minimum != "" && is.Maximum != "":
			variant = "between"
		case is.Maximum != "":
			variant = "max"
		}
	case issues.CheckContent:
		if s.inner == nil {
			return msgNone
		}
	case issues.CheckExcluded:
		if is.When != nil {
			variant = "when"
		}
	case issues.CheckUnique:
		switch {
		case len(is.Values) == 0:
			variant = "bare"
		case is.UniqueBy != "":
			variant = "by"
		}
	}
	if id := customFamily.id(is.Check, variant); id != msgNone {
		return id
	}
	return customFamily.id(is.Check, "")
}

// typeHint recognises the two mistakes models make most with types: a
// quoted scalar ("42" for 42) and an object or array sent as JSON text.
func typeHint(_ *state, is *issues.Issue) msgID {
	str, ok := is.Input.(string)
	if !ok {
		return msgNone
	}
	t := strings.TrimSpace(str)
	for e := range is.Expected.All() {
		switch e {
		case issues.TypeNumber:
			if issues.Number(t).IsNumeric() {
				return msgInvalidTypeQuotedNumber
			}
		case issues.TypeInteger:
			if issues.Number(t).IsNumeric() && isIntegral(t) {
				return msgInvalidTypeQuotedNumber
			}
		case issues.TypeBoolean:
			if t == "true" || t == "false" {
				return msgInvalidTypeQuoted
			}
		case issues.TypeNull:
			if t == "null" {
				return msgInvalidTypeQuoted
			}
		case issues.TypeObject, issues.TypeArray:
			open := byte('{')
			if e == issues.TypeArray {
				open = '['
			}
			if len(t) <= hugeString && len(t) > 1 && t[0] == open && json.Valid([]byte(t)) {
				return msgInvalidTypeJSONString
			}
		}
	}
	return msgNone
}

package formatter

import (
	"encoding/json"
	"strings"

	"github.com/selfheal/selfheal/internal/templates"
	"github.com/selfheal/selfheal/issues"
)

// choose returns the message that words is, by its code, then the facts
// it carries; the suggestions and multiples it asks for are what the
// message then shows. s.inner must be set (see innerOf).
func (s *state) choose(is *issues.Issue) *templates.Message {
	f := s.f
	switch is.Code {
	case issues.InvalidType:
		switch {
		case is.Absent && is.When != nil:
			return s.m("invalid_type.missing.when")
		case is.Absent && len(is.Values) > 1:
			// A union's discriminator not sent: its values are what to send.
			return s.m("invalid_type.missing.values")
		case is.Absent:
			return s.m("invalid_type.missing")
		case unknownInput(is):
			return s.m("invalid_type.unknown")
		}
		if m := s.typeHint(is); m != nil {
			return m
		}
		if len(is.Keys) > 0 && is.Expected.Has(issues.TypeObject) {
			// A union's types, with the keys they require (see typesOfUnion).
			return s.m("invalid_type.object_keys")
		}
		return s.m("invalid_type")

	case issues.TooSmall, issues.TooBig:
		code, variant := string(is.Code), ""
		switch {
		case is.Exact:
			variant = "exact"
		case !is.Inclusive:
			variant = "exclusive"
		}
		if is.Ref != nil && !is.Exact {
			return f.msg(code, "ref", variant)
		}
		if str, ok := is.Input.(string); ok && str == "" && !s.hidden && is.Code == issues.TooSmall {
			// "You sent: ''. Expected at least 1 character.": '' needs no
			// "(0 characters)".
			return f.msg(code, variant, "")
		}
		// too_small.<origin>[.exact|.exclusive]: a size by what was measured.
		if origin := canonicalOrigin(is.Origin, is.Input); origin != "" {
			if m := f.msg(code, origin, variant); m != nil {
				return m
			}
		}
		return f.msg(code, variant, "")

	case issues.InvalidFormat:
		if is.Ref != nil && is.Format != "" {
			if m := f.msg("invalid_format", is.Format, "ref"); m != nil {
				return m
			}
		}
		switch fm := is.Format; {
		case fm == "":
			return s.m("invalid_format.unnamed")
		case fm == "other", fm == "unnamed", fm == "regex" && is.Pattern == "":
			// JSON Schema's format "regex" is not the pattern check.
		default:
			if m := f.msg("invalid_format", fm, ""); m != nil {
				return m
			}
		}
		if f.formatMsg(is.Format) != nil {
			return s.m("invalid_format")
		}
		return s.m("invalid_format.other")

	case issues.NotMultipleOf:
		switch {
		case !s.multiples(is):
			return s.m("not_multiple_of.plain")
		case len(s.upper) == 0:
			return s.m("not_multiple_of.one")
		}
		return s.m("not_multiple_of")

	case issues.UnrecognizedKeys:
		switch {
		case s.inner != nil:
			// A misspelt key merged with the missing field (see
			// findMerges): its inner issue is the missing one.
			return s.m("unrecognized_keys.missing")
		case is.Check == issues.CheckNearMiss:
			// An open schema: Allowed holds what the keys stand for.
			return s.m("unrecognized_keys.near_miss")
		case s.keySuggestions(is):
			return s.m("unrecognized_keys.suggest")
		case len(is.Allowed) > 0:
			return s.m("unrecognized_keys.allowed")
		}
		return s.m("unrecognized_keys")

	case issues.InvalidValue:
		switch {
		case is.Check == issues.CheckNot && is.Ref != nil:
			return s.m("invalid_value.not.ref")
		case is.Check == issues.CheckNot && len(is.Values) > 0:
			return s.m("invalid_value.not")
		case is.Ref != nil:
			return s.m("invalid_value.ref")
		case len(is.Values) == 0:
			return s.m("invalid_value.none")
		case len(is.Values) == 1:
			return s.m("invalid_value.single")
		case len(is.Values) > fewListed:
			// A short list is written whole: a suggestion would repeat
			// one of its values.
			if _, ok := s.valueSuggestion(is); ok {
				return s.m("invalid_value.suggest")
			}
		}
		return s.m("invalid_value")

	case issues.InvalidUnion, issues.InvalidKey, issues.InvalidElement:
		if s.inner == nil {
			return f.msg(string(is.Code), "bare", "")
		}
		return f.msg(string(is.Code), "", "")

	case issues.Custom:
		if m := s.byCheck(is); m != nil {
			return m
		}
		switch {
		case relayed(is):
			// A library's own message (jsonschema v5's): it says what was sent.
			return s.m("custom.unknown")
		case hasMessage(is):
			return s.m("custom")
		}
	}
	return s.m("custom.bare")
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

// countOf is the count that selects the plural form of is's message.
func (s *state) countOf(is *issues.Issue) int64 {
	switch {
	case is.Code == issues.UnrecognizedKeys:
		return int64(len(is.Keys))
	case is.Code == issues.InvalidUnion && s.inner != nil:
		return int64(len(is.Branches))
	}
	return 1
}

func unknownInput(is *issues.Issue) bool { _, ok := is.Input.(issues.Unknown); return ok }

func hasMessage(is *issues.Issue) bool { return strings.TrimSpace(is.Message) != "" }

func relayed(is *issues.Issue) bool {
	u, ok := is.Input.(issues.Unknown)
	return ok && u.Type == "" && hasMessage(is)
}

// byCheck words a custom issue by its check, refined by the facts it
// carries: custom.contains.between, custom.unique.by.
func (s *state) byCheck(is *issues.Issue) *templates.Message {
	variant := ""
	switch is.Check {
	case "":
		return nil
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
			return nil
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
	if m := s.f.msg("custom", is.Check, variant); m != nil {
		return m
	}
	return s.f.msg("custom", is.Check, "")
}

// typeHint recognises the two mistakes models make most with types: a
// quoted scalar ("42" for 42) and an object or array sent as JSON text.
func (s *state) typeHint(is *issues.Issue) *templates.Message {
	str, ok := is.Input.(string)
	if !ok {
		return nil
	}
	t := strings.TrimSpace(str)
	for e := range is.Expected.All() {
		switch e {
		case issues.TypeNumber:
			if issues.Number(t).IsNumeric() {
				return s.m("invalid_type.quoted_number")
			}
		case issues.TypeInteger:
			if issues.Number(t).IsNumeric() && isIntegral(t) {
				return s.m("invalid_type.quoted_number")
			}
		case issues.TypeBoolean:
			if t == "true" || t == "false" {
				return s.m("invalid_type.quoted")
			}
		case issues.TypeNull:
			if t == "null" {
				return s.m("invalid_type.quoted")
			}
		case issues.TypeObject, issues.TypeArray:
			open := byte('{')
			if e == issues.TypeArray {
				open = '['
			}
			if len(t) <= hugeString && len(t) > 1 && t[0] == open && json.Valid([]byte(t)) {
				return s.m("invalid_type.json_string")
			}
		}
	}
	return nil
}

package validatorv10

import (
	"fmt"
	"strings"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/issues"
)

// Rule is the wording of a tag the server registered with validator
// (RegisterValidation), for ErrorsWith. Set exactly one of Message and
// Format.
type Rule struct {
	// Message is what the model reads before "You sent: …": a sentence
	// such as "Must be a SKU from the catalog". {param} stands for the
	// tag's parameter (sku=EU gives "EU").
	Message string
	// Format words the failure as invalid_format of this format, for tags
	// that check a format the catalogs already word ("email", "uuid",
	// "semver", "hexcolor" …).
	Format string
}

// ErrorsWith is Errors that also words a server's own validator tags, each
// by its Rule, as validator's RegisterValidation adds a tag to one
// *validator.Validate: an engine words them when it is built with the
// adapter returned, and no other engine does.
//
//	words, err := validatorv10.ErrorsWith(map[string]validatorv10.Rule{
//		"sku": {Message: "Must be a SKU from the catalog"},
//	})
//	e := selfheal.New(selfheal.WithAdapters(words))
//
// The adapter words Bind's and Map's errors with the rules too (the engine
// tries its adapters before an error's own issues). It checks the rules
// now, so that a mistake fails at start-up rather than in front of a
// model: each tag must be a plain tag name that is not one of validator's
// built-in tags or aliases (their wording is this package's), and each
// rule must set exactly one of Message and Format, with no placeholder
// other than {param}. The map is copied.
func ErrorsWith(rules map[string]Rule) (issues.Adapter, error) {
	table := make(map[string]Rule, len(rules))
	for tag, r := range rules {
		checked, err := validRule(tag, r)
		if err != nil {
			return nil, err
		}
		table[tag] = checked
	}
	return func(dst issues.List, err error) (issues.List, bool) {
		return appendIssues(dst, err, table)
	}, nil
}

// validRule returns r trimmed, or why tag and r cannot be registered.
func validRule(tag string, r Rule) (Rule, error) {
	if tag == "" || strings.ContainsAny(tag, ",|= \t\n") {
		return Rule{}, fmt.Errorf("validatorv10: %q is not a tag name (no commas, pipes, equals signs or spaces)", tag)
	}
	if _, ok := tags[tag]; ok {
		return Rule{}, fmt.Errorf("validatorv10: %q is a built-in validator tag; its wording is the catalogs'", tag)
	}
	switch tag {
	case "dive", "keys", "endkeys", "omitempty", "omitnil", "omitzero", "structonly", "nostructlevel", "-":
		return Rule{}, fmt.Errorf("validatorv10: %q is a validator keyword, not a check", tag)
	}
	msg, format := strings.TrimSpace(r.Message), strings.TrimSpace(r.Format)
	switch {
	case msg == "" && format == "":
		return Rule{}, fmt.Errorf("validatorv10: rule for %q sets neither Message nor Format", tag)
	case msg != "" && format != "":
		return Rule{}, fmt.Errorf("validatorv10: rule for %q sets both Message and Format; choose one", tag)
	case format != "" && strings.ContainsAny(format, ". \t\n{}"):
		return Rule{}, fmt.Errorf("validatorv10: rule for %q: format %q is not a format name", tag, format)
	}
	if err := checkMessage(msg); err != nil {
		return Rule{}, fmt.Errorf("validatorv10: rule for %q: %w", tag, err)
	}
	return Rule{Message: msg, Format: format}, nil
}

// checkMessage accepts text whose only placeholder is {param}.
func checkMessage(msg string) error {
	rest := msg
	for {
		i := strings.IndexAny(rest, "{}")
		if i < 0 {
			return nil
		}
		if rest[i] == '}' {
			return fmt.Errorf("unmatched } in %q", msg)
		}
		if !strings.HasPrefix(rest[i:], "{param}") {
			return fmt.Errorf("unknown placeholder in %q (only {param} is known)", msg)
		}
		rest = rest[i+len("{param}"):]
	}
}

func (r Rule) issue(is *issues.Issue, fe validator.FieldError, path issues.Path, param string) {
	*is = issues.Issue{Path: path, Input: fe.Value(), Source: "validator:" + fe.Tag()}
	if r.Format != "" {
		is.Code, is.Format = issues.InvalidFormat, r.Format
		setParam(is, param)
		return
	}
	is.Code, is.Message = issues.Custom, strings.ReplaceAll(r.Message, "{param}", param)
}

package validatorv10

import (
	"fmt"
	"maps"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/issues"
)

// Rule is the wording of a tag the server registered with validator
// (RegisterValidation). Set exactly one of Message and Format.
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

// rules maps tags to their Rule. It is replaced whole on registration
// (copy on write), so that looking a tag up takes no lock and allocates
// nothing.
var (
	rules   atomic.Pointer[map[string]Rule]
	rulesMu sync.Mutex
)

// RegisterTag gives a server's own validator tag its wording. It checks
// the registration now, so that a mistake fails at start-up rather than in
// front of a model: the tag must be a plain tag name that is not one of
// validator's built-in tags or aliases (their wording is this package's),
// and the rule must set exactly one of Message and Format, with no
// placeholder other than {param}. Registering a tag again replaces its rule.
func RegisterTag(tag string, r Rule) error {
	if tag == "" || strings.ContainsAny(tag, ",|= \t\n") {
		return fmt.Errorf("validatorv10: %q is not a tag name (no commas, pipes, equals signs or spaces)", tag)
	}
	if classOf(tag) != clsUnknown || aliasFormat[tag] != "" {
		return fmt.Errorf("validatorv10: %q is a built-in validator tag; its wording is the catalogs'", tag)
	}
	switch tag {
	case "dive", "keys", "endkeys", "omitempty", "omitnil", "omitzero", "structonly", "nostructlevel", "-":
		return fmt.Errorf("validatorv10: %q is a validator keyword, not a check", tag)
	}
	msg, format := strings.TrimSpace(r.Message), strings.TrimSpace(r.Format)
	switch {
	case msg == "" && format == "":
		return fmt.Errorf("validatorv10: rule for %q sets neither Message nor Format", tag)
	case msg != "" && format != "":
		return fmt.Errorf("validatorv10: rule for %q sets both Message and Format; choose one", tag)
	case format != "" && strings.ContainsAny(format, ". \t\n{}"):
		return fmt.Errorf("validatorv10: rule for %q: format %q is not a format name", tag, format)
	}
	if err := checkMessage(msg); err != nil {
		return fmt.Errorf("validatorv10: rule for %q: %w", tag, err)
	}
	rulesMu.Lock()
	defer rulesMu.Unlock()
	next := map[string]Rule{}
	if old := rules.Load(); old != nil {
		maps.Copy(next, *old)
	}
	next[tag] = Rule{Message: msg, Format: format}
	rules.Store(&next)
	return nil
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

func lookupRule(tag string) (Rule, bool) {
	m := rules.Load()
	if m == nil {
		return Rule{}, false
	}
	r, ok := (*m)[tag]
	return r, ok
}

func (r Rule) issue(fe validator.FieldError, path issues.Path, param string) issues.Issue {
	is := issues.Issue{Path: path, Input: fe.Value(), Source: sourceOf(fe.Tag())}
	if r.Format != "" {
		is.Code, is.Format = issues.InvalidFormat, r.Format
		setParam(&is, param)
		return is
	}
	is.Code, is.Message = issues.Custom, strings.ReplaceAll(r.Message, "{param}", param)
	return is
}

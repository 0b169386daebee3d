package validatorv10

import (
	"testing"

	"github.com/go-playground/validator/v10"
)

// TestRuleFormatParam: a server's own tag that words itself as a format
// puts its parameter in the field that format's wording reads, so that
// a registered "starts_with" says its prefix as the built-in one does.
func TestRuleFormatParam(t *testing.T) {
	for _, c := range []struct{ format, param, want string }{
		{"regex", "^a", "invalid_format (root) format=regex pattern=^a"},
		{"starts_with", "inv_", "invalid_format (root) format=starts_with prefix=inv_"},
		{"ends_not_with", ".tmp", "invalid_format (root) format=ends_not_with suffix=.tmp"},
		{"excludes_any", "<>", "invalid_format (root) format=excludes_any includes=<>"},
		{"time_layout", "2006-01-02", "invalid_format (root) format=time_layout layout=2006-01-02"},
		{"postcode", "FR", "invalid_format (root) format=postcode country=FR"},
		{"semver", "v2", "invalid_format (root) format=semver param=v2"},
	} {
		const tag = "param_test_rule"
		rules := map[string]Rule{tag: {Format: c.format}}
		v := newValidate()
		if err := v.RegisterValidation(tag, func(validator.FieldLevel) bool { return false }); err != nil {
			t.Fatal(err)
		}
		list, _ := appendIssues(nil, v.Var("x", tag+"="+c.param), rules)
		if len(list) != 1 {
			t.Fatalf("%s: %d issues", c.format, len(list))
		}
		list[0].Source = ""
		if got := facts(list[0]); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.format, got, c.want)
		}
	}
}

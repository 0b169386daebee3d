package formatter

import (
	"strings"
	"testing"

	"github.com/selfheal/selfheal/issues"
)

// TestLinesFollowTypedFacts: issues that differ only in one parameter
// field, or in the order of their expected types, get lines of their own
// on every call.
func TestLinesFollowTypedFacts(t *testing.T) {
	f := New(DefaultOptions())
	for _, tc := range []struct {
		is   issues.Issue
		want string
	}{
		{issues.Issue{Code: issues.InvalidType, Path: issues.Path{"n"}, Input: true, Expected: issues.TypeNull.Or(issues.TypeInteger)},
			`<field name="n">You sent: true. Expected null or an integer.</field>`},
		{issues.Issue{Code: issues.InvalidType, Path: issues.Path{"n"}, Input: true, Expected: issues.TypeInteger.Or(issues.TypeNull)},
			`<field name="n">You sent: true. Expected an integer or null.</field>`},
		{issues.Issue{Code: issues.InvalidFormat, Path: issues.Path{"id"}, Input: "x", Format: "starts_with", Prefix: "inv_"},
			`<field name="id">You sent: 'x'. Expected to start with 'inv_'.</field>`},
		{issues.Issue{Code: issues.InvalidFormat, Path: issues.Path{"id"}, Input: "x", Format: "starts_with", Prefix: "cus_"},
			`<field name="id">You sent: 'x'. Expected to start with 'cus_'.</field>`},
		{issues.Issue{Code: issues.InvalidFormat, Path: issues.Path{"day"}, Input: "x", Format: "time_layout", Layout: "2006-01-02"},
			`<field name="day">You sent: 'x'. Expected the Go layout '2006-01-02', e.g. '2026-01-31'.</field>`},
		{issues.Issue{Code: issues.InvalidFormat, Path: issues.Path{"day"}, Input: "x", Format: "time_layout", Layout: "02/01/2006"},
			`<field name="day">You sent: 'x'. Expected the Go layout '02/01/2006', e.g. '31/01/2026'.</field>`},
		{issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Path: issues.Path{"users"}, Input: []any{}, Values: []any{"a"}, UniqueBy: "email"},
			`<field name="users">Items must have a unique 'email'.`},
		{issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Path: issues.Path{"users"}, Input: []any{}, Values: []any{"a"}},
			`<field name="users">You sent: []. Expected no repeated item; 'a' repeats.</field>`},
	} {
		for call := 1; call <= 3; call++ {
			out := string(f.AppendValidation(nil, "t", issues.List{tc.is}))
			if !strings.Contains(out, tc.want) {
				t.Errorf("call %d:\n%s\nwant the line\n%s", call, out, tc.want)
			}
		}
	}
}

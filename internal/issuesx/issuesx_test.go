package issuesx_test

import (
	"slices"
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// TestOmitted: the issue Omitted builds is the one issues.List.Error and
// OmittedCount count, and no other issue is.
func TestOmitted(t *testing.T) {
	list := issues.List{{Code: issues.TooSmall, Path: issues.Path{"a"}}, issuesx.Omitted(1500)}
	if got, want := list.Error(), "a: too_small; and 1500 more"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if n := issuesx.OmittedCount(&list[1]); n != 1500 {
		t.Errorf("OmittedCount = %d", n)
	}
	for _, is := range []issues.Issue{
		{Code: issues.Custom, Input: 3, Absent: true},
		{Code: issues.TooBig, Check: issuesx.CheckOmitted, Input: 3, Absent: true},
		{Code: issues.Custom, Check: issuesx.CheckOmitted, Input: "3", Absent: true},
	} {
		if n := issuesx.OmittedCount(&is); n != 0 {
			t.Errorf("%+v counts %d", is, n)
		}
	}
}

func TestCompare(t *testing.T) {
	list := []issues.Issue{
		{Code: issues.TooBig, Path: issues.Path{"b"}},
		{Code: issues.InvalidType, Path: issues.Path{"a", 10}},
		{Code: issues.Custom, Path: issues.Path{"b"}},
		{Code: issues.InvalidType, Path: issues.Path{"a", 2}},
		{Code: issues.InvalidType},
	}
	slices.SortFunc(list, func(a, b issues.Issue) int { return issuesx.Compare(&a, &b) })
	var got []string
	for _, is := range list {
		got = append(got, is.Path.String()+" "+string(is.Code))
	}
	want := []string{"(root) invalid_type", "a[2] invalid_type", "a[10] invalid_type", "b custom", "b too_big"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
}

func TestLastKeyAndInt(t *testing.T) {
	for _, c := range []struct {
		p    issues.Path
		want string
	}{{nil, ""}, {issues.Path{"a", 0}, ""}, {issues.Path{0, "name"}, "name"}} {
		if got := issuesx.LastKey(c.p); got != c.want {
			t.Errorf("LastKey(%v) = %q, want %q", c.p, got, c.want)
		}
	}
	for _, c := range []struct {
		n    issues.Number
		want int64
		ok   bool
	}{{"18", 18, true}, {"-3", -3, true}, {"1e3", 0, false}, {"0.5", 0, false}, {"99999999999999999999", 0, false}, {"", 0, false}} {
		if got, ok := issuesx.Int(c.n); ok != c.ok || (ok && got != c.want) {
			t.Errorf("Int(%q) = %d, %v", c.n, got, ok)
		}
	}
}

func TestTypesOf(t *testing.T) {
	for _, c := range []struct {
		names []string
		want  string
	}{
		{nil, ""},
		{[]string{"integer", "null"}, "integer|null"},
		{[]string{"null", "integer"}, "null|integer"},
		{[]string{"string", "bigint", "string", "array"}, "string|array"},
		{[]string{"number", "integer", "boolean", "object"}, "number|integer|boolean|object"},
	} {
		if got := issuesx.TypesOf(c.names...).String(); got != c.want {
			t.Errorf("TypesOf(%q) = %q, want %q", c.names, got, c.want)
		}
	}
}

func TestCodes(t *testing.T) {
	if len(issuesx.Codes) != 11 || issuesx.Codes[0] != issues.InvalidType || issuesx.Codes[10] != issues.Custom {
		t.Errorf("Codes = %v", issuesx.Codes)
	}
}

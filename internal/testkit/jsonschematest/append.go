package jsonschematest

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/issues"
)

// Appender is what both adapters' Schema offer to validate into a list the
// caller reuses.
type Appender interface {
	Validate(instance any) issues.List
	AppendValidate(dst issues.List, instance any) issues.List
}

// Converter converts err, what the library said of instance, appending its
// issues to dst: the unexported conversion of an adapter's Schema, which
// its tests export.
type Converter func(dst issues.List, err error, instance any) (issues.List, bool)

// CheckAppend holds s to its reuse contract on one case: err is what the
// library said of bad, and conv is s's conversion of it. Converting into a
// reused list, twice, gives exactly the issues of a fresh conversion after
// the caller's own; AppendValidate, twice, gives what Validate gives (in
// any order: the libraries walk objects in map order); a valid instance,
// when good is not nil, leaves the list as it was.
func CheckAppend(t testing.TB, name string, s Appender, conv Converter, err error, bad, good any) {
	t.Helper()
	caller := issues.Issue{Code: issues.Custom, Message: "the caller's"}
	want, ok := conv(nil, err, bad)
	if !ok || len(want) == 0 {
		t.Fatalf("%s: no issues", name)
	}
	buf := issues.List{caller}
	for range 2 {
		var got issues.List
		if got, ok = conv(buf[:1], err, bad); !ok || !reflect.DeepEqual(got[0], caller) || !reflect.DeepEqual(got[1:], want) {
			t.Fatalf("%s: converting into a reused list\n got %v %#v\nwant %#v", name, ok, got, want)
		}
		buf = got
	}
	for range 2 {
		got := s.AppendValidate(buf[:1], bad)
		if !reflect.DeepEqual(got[0], caller) || !sameIssues(got[1:], s.Validate(bad)) {
			t.Fatalf("%s: AppendValidate\n got %#v\nwant %#v", name, got[1:], s.Validate(bad))
		}
		buf = got
	}
	if good != nil {
		if got := s.AppendValidate(buf[:1], good); len(got) != 1 || &got[0] != &buf[0] {
			t.Errorf("%s: a valid instance changed the list: %v", name, got)
		}
	}
}

// sameIssues reports whether a and b hold the same issues, in any order.
func sameIssues(a, b issues.List) bool {
	key := func(is issues.Issue) string {
		data, err := json.Marshal(is)
		if err != nil {
			panic(err)
		}
		return string(data)
	}
	sorted := func(l issues.List) issues.List {
		l = slices.Clone(l)
		slices.SortStableFunc(l, func(x, y issues.Issue) int { return strings.Compare(key(x), key(y)) })
		return l
	}
	return reflect.DeepEqual(sorted(a), sorted(b))
}

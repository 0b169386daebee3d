package schema

import (
	"fmt"
	"slices"
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// omitted returns the number of issues before the Omitted one at the end of
// list and its count (0 when there is none).
func omitted(list issues.List) (built, rest int) {
	if n := len(list); n > 0 && issuesx.OmittedCount(&list[n-1]) > 0 {
		return n - 1, issuesx.OmittedCount(&list[n-1])
	}
	return len(list), 0
}

// TestSinkManyKeys: 100,000 unknown keys of one object, reported one by
// one in no order and each twice (as two schemas that close the object
// report them), make one issue whose keys are sorted and unique; the names
// allowed lose the ones sent, looked up in the sorted keys.
func TestSinkManyKeys(t *testing.T) {
	const n = 100_000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("k%06d", (i*7919)%n) // every key once, scattered
	}
	var k Sink
	for range 2 {
		for _, key := range keys {
			k.Unrecognized(issues.Path{"o"}, nil, key, []string{"a", "k000005", "z"}, "jsonschema:unevaluatedProperties")
		}
	}
	list := k.Finish()
	if len(list) != 1 {
		t.Fatalf("%d issues", len(list))
	}
	is := list[0]
	if len(is.Keys) != n || !slices.IsSorted(is.Keys) || is.Keys[0] != "k000000" || is.Keys[n-1] != "k099999" {
		t.Errorf("%d keys, sorted %v, from %s to %s", len(is.Keys), slices.IsSorted(is.Keys), is.Keys[0], is.Keys[len(is.Keys)-1])
	}
	if !slices.Equal(is.Allowed, []string{"a", "z"}) {
		t.Errorf("allowed: %v", is.Allowed)
	}
}

// TestSinkKeysTogether: keys a library reports together are kept as they
// are when sorted, and otherwise copied before sorting: the caller's slice
// is never reordered.
func TestSinkKeysTogether(t *testing.T) {
	sorted := []string{"a", "b", "c"}
	unsorted := []string{"c", "a", "b", "a"}
	var k Sink
	k.UnrecognizedKeys(issues.Path{"x"}, nil, sorted, nil, "jsonschema:additionalProperties")
	k.UnrecognizedKeys(issues.Path{"y"}, nil, unsorted, nil, "jsonschema:additionalProperties")
	k.UnrecognizedKeys(issues.Path{"x"}, nil, []string{"b", "d"}, nil, "jsonschema:additionalProperties")
	list := k.Finish()
	if len(list) != 2 || !slices.Equal(list[0].Keys, []string{"a", "b", "c", "d"}) || !slices.Equal(list[1].Keys, []string{"a", "b", "c"}) {
		t.Fatalf("got %v", list)
	}
	if !slices.Equal(sorted, []string{"a", "b", "c"}) || !slices.Equal(unsorted, []string{"c", "a", "b", "a"}) {
		t.Errorf("the caller's keys changed: %v %v", sorted, unsorted)
	}
}

// TestSinkLimit: a sink builds issuesx.BuildLimit issues and counts the
// others in one Omitted issue at its end; keys and items of one object or
// array past the limit count as the one issue they would have made, and
// still join an issue already built.
func TestSinkLimit(t *testing.T) {
	const source = "jsonschema:test"
	three := []any{"a", "b", "c"}
	for _, c := range []struct {
		name  string
		fill  func(k *Sink)
		built int
		rest  int
		check func(t *testing.T, list issues.List)
	}{
		{"issues", func(k *Sink) {
			for i := range 1500 {
				k.Add(issues.InvalidType, issues.Path{"tags", i}, i, source).Expected = issues.TypeString
			}
		}, 1000, 500, func(t *testing.T, list issues.List) {
			if list[999].Path[1] != 999 || list[999].Expected != issues.TypeString {
				t.Errorf("last built: %+v", list[999])
			}
		}},
		{"objects with keys one by one", func(k *Sink) {
			k.Unrecognized(issues.Path{"first"}, nil, "x", nil, source)
			for i := range 1500 {
				for _, key := range []string{"a", "b", "c"} {
					k.Unrecognized(issues.Path{"items", i}, nil, key, nil, source)
				}
			}
			k.Unrecognized(issues.Path{"first"}, nil, "y", nil, source)
		}, 1000, 501, func(t *testing.T, list issues.List) {
			if !slices.Equal(list[0].Keys, []string{"x", "y"}) || !slices.Equal(list[999].Keys, []string{"a", "b", "c"}) {
				t.Errorf("keys: %v … %v", list[0].Keys, list[999].Keys)
			}
		}},
		{"objects with keys together", func(k *Sink) {
			for i := range 1500 {
				k.UnrecognizedKeys(issues.Path{"items", i}, nil, []string{"b", "a"}, nil, source)
			}
		}, 1000, 500, nil},
		{"array tails", func(k *Sink) {
			for i := range 1500 {
				k.ExcessItem(issues.Path{"rows", i}, three, 1, source)
				k.ExcessItem(issues.Path{"rows", i}, three, 2, source)
			}
		}, 1000, 500, func(t *testing.T, list issues.List) {
			if is := list[999]; is.Code != issues.TooBig || is.Maximum != "1" || is.Path[1] != 999 {
				t.Errorf("last built: %+v", is)
			}
		}},
		{"items apart", func(k *Sink) {
			arr := make([]any, 3000)
			for i := 0; i < len(arr); i += 2 {
				k.ExcessItem(issues.Path{"gaps"}, arr, i, source)
			}
		}, 1000, 500, func(t *testing.T, list issues.List) {
			if is := list[999]; is.Check != issues.CheckNever || is.Path[1] != 1998 {
				t.Errorf("last built: %+v", is)
			}
		}},
		{"excluded and never", func(k *Sink) {
			for i := range 1200 {
				k.FalseSchema([]string{"properties", "p"}, issues.Path{"items", i, "p"}, 1, true,
					func() (issues.Path, any) { return issues.Path{"items", i}, nil }, func() []string { return nil })
			}
		}, 1000, 200, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			var k Sink
			c.fill(&k)
			list := k.Finish()
			built, rest := omitted(list)
			if built != c.built || rest != c.rest {
				t.Fatalf("%d built, %d omitted; want %d, %d", built, rest, c.built, c.rest)
			}
			if last := list[len(list)-1]; last.Code != issues.Custom || last.Check != issuesx.CheckOmitted {
				t.Errorf("last issue: %+v", last)
			}
			if c.check != nil {
				c.check(t, list)
			}
		})
	}
}

// TestSinkLimitAfterCaller: the limit holds for what the sink appends after
// the caller's issues.
func TestSinkLimitAfterCaller(t *testing.T) {
	dst := make(issues.List, 5)
	k := Sink{Out: dst, From: len(dst)}
	for i := range 1001 {
		k.Add(issues.TooBig, issues.Path{i}, i, "jsonschema:maximum")
	}
	list := k.Finish()
	if len(list) != 5+1000+1 || issuesx.OmittedCount(&list[len(list)-1]) != 1 {
		t.Errorf("%d issues, last %+v", len(list), list[len(list)-1])
	}
}

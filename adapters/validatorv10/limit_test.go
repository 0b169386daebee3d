package validatorv10

import (
	"fmt"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

type limitAges struct {
	Ages []int `json:"ages" validate:"dive,gte=18"`
}

type limitPair struct {
	A int `json:"a" validate:"gt=0"`
	B int `json:"b" validate:"eqfield=A"`
}

type limitPairs struct {
	Pairs []limitPair `json:"pairs" validate:"dive"`
}

type limitLabels struct {
	Labels map[string]string `json:"labels" validate:"dive,keys,max=3,endkeys,required"`
}

// splitOmitted returns the issues of list before its Omitted issue and that
// issue's count (0 when it has none).
func splitOmitted(list issues.List) (issues.List, int) {
	if n := len(list); n > 0 && issuesx.OmittedCount(&list[n-1]) > 0 {
		return list[:n-1], issuesx.OmittedCount(&list[n-1])
	}
	return list, 0
}

// TestBuildLimit: a failure of more than issuesx.BuildLimit fields gives that
// many issues and one Omitted issue counting the others, for every form of
// validator error.
func TestBuildLimit(t *testing.T) {
	v := newValidate()
	ages := limitAges{Ages: make([]int, 1500)}
	pairs := limitPairs{Pairs: make([]limitPair, 1500)}
	for i := range pairs.Pairs {
		pairs.Pairs[i].B = i + 1 // a fails gt=0 and b fails eqfield=A: 3000 failures
	}
	labels := limitLabels{Labels: map[string]string{}}
	for i := range 1200 {
		labels.Labels[fmt.Sprintf("key%05d", i)] = "x"
	}
	data, rules := map[string]any{}, map[string]any{}
	for i := range 1500 {
		data[fmt.Sprintf("f%04d", i)] = ""
		rules[fmt.Sprintf("f%04d", i)] = "required"
	}
	for _, c := range []struct {
		name           string
		err            error
		built, omitted int
		first, last    string // paths of the first and last issue built
		check          func(t *testing.T, list issues.List)
	}{
		{"dived slice", v.Struct(ages), 1000, 500, "ages[0]", "ages[999]", nil},
		{"dived slice, bound", Bind(v.Struct(ages), ages), 1000, 500, "ages[0]", "ages[999]", nil},
		{"cross-field in many items", Bind(v.Struct(pairs), pairs), 1000, 2000, "pairs[0].a", "pairs[499].b", nil},
		{"cross-field in many items, unbound", v.Struct(pairs), 1000, 2000, "pairs[0].a", "pairs[499].b",
			func(t *testing.T, list issues.List) {
				// The other field is named as its own failure names it.
				if ref := list[999].Ref; ref == nil || ref.Path.String() != "pairs[499].a" {
					t.Errorf("ref: %+v", ref)
				}
			}},
		{"map keys, bound", Bind(v.Struct(labels), labels), 1000, 200, "", "", func(t *testing.T, list issues.List) {
			for _, is := range list {
				if is.Code != issues.InvalidKey || len(is.Issues) != 1 {
					t.Fatalf("%+v", is)
				}
			}
		}},
		{"ValidateMap", Map(v.ValidateMap(data, rules)), 1000, 500, "f0000", "f0999", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			all, ok := Issues(c.err)
			if !ok {
				t.Fatal("not converted")
			}
			list, rest := splitOmitted(all)
			if len(list) != c.built || rest != c.omitted {
				t.Fatalf("%d built, %d omitted; want %d, %d", len(list), rest, c.built, c.omitted)
			}
			if first, last := list[0].Path.String(), list[len(list)-1].Path.String(); c.first != "" && (first != c.first || last != c.last) {
				t.Errorf("built from %s to %s, want %s to %s", first, last, c.first, c.last)
			}
			if c.check != nil {
				c.check(t, list)
			}
		})
	}
}

// TestBuildLimitAppend: the limit holds for what one call appends after
// the caller's issues.
func TestBuildLimitAppend(t *testing.T) {
	err := validator.New().Struct(limitAges{Ages: make([]int, 1001)})
	list, ok := appendIssues(make(issues.List, 3), err, nil)
	if !ok || len(list) != 3+1000+1 || issuesx.OmittedCount(&list[len(list)-1]) != 1 {
		t.Errorf("%d issues, last %+v", len(list), list[len(list)-1])
	}
}

// TestBuildLimitAllocations: past the limit issues are counted without
// allocating: converting 20,000 failures allocates what 2,000 do.
func TestBuildLimitAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	v := validator.New()
	allocs := func(n int) float64 {
		err := v.Struct(limitAges{Ages: make([]int, n)})
		var list issues.List
		return testing.AllocsPerRun(5, func() { list, _ = appendIssues(list[:0], err, nil) })
	}
	if few, many := allocs(2000), allocs(20_000); many > few {
		t.Errorf("%v allocations for 20,000 failures, %v for 2,000", many, few)
	}
}

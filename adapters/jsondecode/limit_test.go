package jsondecode

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

type limitTags struct {
	Tags []string `json:"tags"`
}

type limitRow struct {
	A int `json:"a"`
}

type limitDoc struct {
	Tags  []string       `json:"tags"`
	Rows  []limitRow     `json:"rows"`
	Codes map[int]string `json:"codes"`
	Inner limitInner     `json:"inner"`
}

// limitInner decodes itself with Decode, whose capped list becomes part of
// the outer one.
type limitInner struct{}

func (*limitInner) UnmarshalJSON(data []byte) error {
	var v limitTags
	return Decode(data, &v)
}

// limitRepeat writes n values made by item, comma-separated.
func limitRepeat(n int, item func(i int) string) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = item(i)
	}
	return strings.Join(parts, ",")
}

// TestBuildLimit: past issuesx.BuildLimit issues Decode counts the others,
// in one Omitted issue at the end of the list, and builds none; many
// unknown keys make one issue with their keys sorted and unique.
func TestBuildLimit(t *testing.T) {
	numbers := func(n int) string { return limitRepeat(n, func(i int) string { return fmt.Sprint(i) }) }
	for _, c := range []struct {
		name, doc      string
		built, omitted int
		first, last    string // paths of the first and last issue built
	}{
		{"invalid items", `{"tags": [` + numbers(1500) + `]}`, 1000, 500, "tags[0]", "tags[999]"},
		{"objects with unknown keys", `{"rows": [` + limitRepeat(1500, func(int) string { return `{"b": 1, "c": 2}` }) + `]}`,
			1000, 500, "rows[0]", "rows[999]"},
		{"map keys", `{"codes": {` + limitRepeat(1500, func(i int) string { return fmt.Sprintf(`"x%d": "v"`, i) }) + `}}`,
			1000, 500, "codes", "codes"},
		// The unknown key comes first: its issue keeps its place, and the
		// last item built makes room for it.
		{"unknown key before many items", `{"zzz": 1, "tags": [` + numbers(1500) + `]}`, 1000, 501, "(root)", "tags[998]"},
		// The inner type's own list is capped already: its count joins.
		{"a capped list from an unmarshaler", `{"tags": [1, 2], "inner": {"tags": [` + numbers(1500) + `]}}`,
			1000, 502, "tags[0]", "inner.tags[997]"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var v limitDoc
			all, ok := Issues(Decode([]byte(c.doc), &v))
			if !ok {
				t.Fatal("no issues")
			}
			n := len(all) - 1
			list, rest := all[:n], issuesx.OmittedCount(&all[n])
			if len(list) != c.built || rest != c.omitted || all[n].Check != issuesx.CheckOmitted {
				t.Fatalf("%d built, %d omitted; want %d, %d", len(list), rest, c.built, c.omitted)
			}
			if first, last := list[0].Path.String(), list[len(list)-1].Path.String(); first != c.first || last != c.last {
				t.Errorf("built from %s to %s, want %s to %s", first, last, c.first, c.last)
			}
		})
	}
}

// TestManyUnknownKeys: 100,000 unknown keys, each sent twice, are one
// issue whose keys are sorted and unique.
func TestManyUnknownKeys(t *testing.T) {
	const n = 100_000
	doc := `{"tags": [], ` + limitRepeat(2*n, func(i int) string { return fmt.Sprintf(`"k%06d": 1`, (i*7919)%n) }) + `}`
	var v limitTags
	list, _ := Issues(Decode([]byte(doc), &v))
	if len(list) != 1 {
		t.Fatalf("%d issues", len(list))
	}
	if is := list[0]; is.Code != issues.UnrecognizedKeys || len(is.Keys) != n || !slices.IsSorted(is.Keys) ||
		is.Keys[0] != "k000000" || is.Keys[n-1] != "k099999" || !slices.Equal(is.Allowed, []string{"tags"}) {
		t.Errorf("%s: %d keys (sorted: %v), allowed %v", is.Code, len(is.Keys), slices.IsSorted(is.Keys), is.Allowed)
	}
}

// TestBuildLimitAllocations: past the limit issues are counted without
// allocating: decoding 200,000 invalid items allocates what 20,000 do, but
// for the growth of the parsed document (too large to pool for both).
func TestBuildLimitAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	allocs := func(n int) float64 {
		doc := []byte(`{"tags": [` + limitRepeat(n, func(i int) string { return fmt.Sprint(i) }) + `]}`)
		return testing.AllocsPerRun(5, func() {
			var v limitTags
			_ = Decode(doc, &v)
		})
	}
	if few, many := allocs(20_000), allocs(200_000); many > few+16 {
		t.Errorf("%v allocations for 200,000 items, %v for 20,000", many, few)
	}
}

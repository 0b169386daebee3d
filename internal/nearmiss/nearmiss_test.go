package nearmiss

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

// flat is the shape of an open object declaring names, nothing below.
func flat(names ...string) *Shape {
	slices.Sort(names)
	return &Shape{Names: names, Children: make([]*Shape, len(names)), Check: true}
}

func TestAppendNil(t *testing.T) {
	list := issues.List{{Code: issues.Custom}}
	if got := Append(list, 0, nil, map[string]any{"x": 1}); len(got) != 1 {
		t.Errorf("a nil shape added issues: %v", got)
	}
	if got := Append(list, 1, flat("dryRun"), map[string]any{"dryRun": true, "mode": 1}); len(got) != 1 {
		t.Errorf("no near miss added issues: %v", got)
	}
}

// Every issue stays where it was, the missing properties a near miss
// stands for too (the tool refuses the call without them: a formatter
// words each with its key); the near misses go last, before an Omitted
// issue.
func TestAppendKeepsIssues(t *testing.T) {
	absent := func(p ...any) issues.Issue {
		return issues.Issue{Code: issues.InvalidType, Path: p, Absent: true, Source: "jsonschema:required"}
	}
	obj := map[string]any{"contents": "x", "pth": "a"}
	list := issues.List{
		absent("content"), // the caller's
		absent("content"),
		{Code: issues.TooSmall, Path: issues.Path{"n"}},
		absent("mode"),
		absent("path"),
		issuesx.Omitted(7),
	}
	got := Append(slices.Clone(list), 1, flat("content", "mode", "path"), obj)
	want := append(slices.Clone(list[:5]),
		issues.Issue{Code: issues.UnrecognizedKeys, Path: issues.Path{}, Input: obj, Keys: []string{"contents", "pth"},
			Allowed: []string{"content", "path"}, Check: issues.CheckNearMiss, Source: SourceTypo},
		issuesx.Omitted(7),
	)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// Past issuesx.BuildLimit objects, the others are counted.
func TestAppendLimit(t *testing.T) {
	item := flat("name")
	arr := make([]any, issuesx.BuildLimit+3)
	for i := range arr {
		arr[i] = map[string]any{"nmae": i}
	}
	list := Append(nil, 0, &Shape{Items: item}, arr)
	if len(list) != issuesx.BuildLimit+1 {
		t.Fatalf("%d issues", len(list))
	}
	if n := issuesx.OmittedCount(&list[len(list)-1]); n != 3 {
		t.Errorf("omitted %d, want 3", n)
	}
	// In the instance's order, whatever the maps'.
	for i, is := range list[:issuesx.BuildLimit] {
		if is.Path.Compare(issues.Path{i}) != 0 {
			t.Fatalf("issue %d at %v", i, is.Path)
		}
	}
}

// Which names were sent is known for schemas of any size.
func TestAppendManyNames(t *testing.T) {
	var names []string
	for i := range 100 {
		names = append(names, fmt.Sprintf("property%03d", i))
	}
	sh := flat(names...)
	obj := map[string]any{}
	for _, n := range names {
		obj[n] = 1
	}
	obj["property099x"] = 1 // near property099, which was sent
	if got := Append(nil, 0, sh, obj); got != nil {
		t.Errorf("near a name sent: %v", got)
	}
	delete(obj, "property099")
	got := Append(nil, 0, sh, obj)
	if len(got) != 1 || !slices.Equal(got[0].Allowed, []string{"property099"}) {
		t.Errorf("got %v", got)
	}
}

type prefix string

func (p prefix) MatchString(s string) bool { return len(s) >= len(p) && s[:len(p)] == string(p) }

func TestAppendPatterns(t *testing.T) {
	sh := flat("dryRun")
	sh.Patterns = []Matcher{prefix("dry")}
	if got := Append(nil, 0, sh, map[string]any{"dryrun": true}); got != nil {
		t.Errorf("a key matching a pattern is declared: %v", got)
	}
}

func TestAppendAllocations(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	sh := flat("path", "edits", "dryRun")
	sh.Children[1] = &Shape{Items: flat("oldText", "newText")}
	v := map[string]any{"path": "a", "extra": 1, "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}}
	if n := testing.AllocsPerRun(100, func() { Append(nil, 0, sh, v) }); n != 0 {
		t.Errorf("%v allocations without a near miss", n)
	}
}

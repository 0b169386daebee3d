package formatter

import (
	"encoding/json"
	"encoding/xml"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// TestNamesAreBounded: a key the model sent is cut in the name attribute
// with its size stated, and a long path keeps its start and its end.
func TestNamesAreBounded(t *testing.T) {
	f := New(DefaultOptions())
	deep := issues.Path{"data"}
	for range 400 {
		deep = append(deep, "a")
	}
	deep = append(deep, "last")
	tests := []struct {
		name string
		path issues.Path
		want string
	}{
		{"short key", issues.Path{"meta", "k"}, `meta.k`},
		{"key at the budget", issues.Path{"meta", strings.Repeat("k", 60)}, `meta.` + strings.Repeat("k", 60)},
		{"long key", issues.Path{"meta", strings.Repeat("k", 61)},
			`meta[&quot;` + strings.Repeat("k", 60) + `… (61 characters)&quot;]`},
		{"10 MiB key", issues.Path{"meta", strings.Repeat("k", 10<<20), 3},
			`meta[&quot;` + strings.Repeat("k", 60) + `… (10485760 bytes)&quot;][3]`},
		{"long key of runes", issues.Path{strings.Repeat("é", 100)},
			`[&quot;` + strings.Repeat("é", 60) + `… (100 characters)&quot;]`},
		{"invalid UTF-8 in a long key", issues.Path{strings.Repeat("\xff", 100)},
			`[&quot;` + strings.Repeat(`\ufffd`, 60) + `… (100 characters)&quot;]`},
		// 809 bytes: 160 kept from the start, 319 from the end.
		{"deep path", deep, `data` + strings.Repeat(".a", 78) + `…` + strings.Repeat(".a", 157) + `.last`},
		// Keys of control characters: six bytes each once escaped.
		{"quoted keys", issues.Path{strings.Repeat("\x00", 300), "a.b", strings.Repeat("\x01", 300), "c[d]", "last"},
			`[&quot;` + strings.Repeat(`\u0000`, 60) + `… (300 characters)&quot;]…[&quot;c[d]&quot;].last`},
	}
	for _, tc := range tests {
		list := issues.List{{Code: issues.InvalidType, Path: tc.path, Input: 1, Expected: issues.TypeString}}
		out := string(f.AppendValidation(nil, "x", list))
		_, rest, _ := strings.Cut(out, `<field name="`)
		name, _, _ := strings.Cut(rest, `">`)
		if name != tc.want {
			t.Errorf("%s: name\n%s\nwant\n%s", tc.name, name, tc.want)
		}
		if len(out) > 1<<10 {
			t.Errorf("%s: %d bytes", tc.name, len(out))
		}
		fields, _, _ := f.Fields(list)
		if got := string(xmlAttr(fields[0].Name)); got != tc.want {
			t.Errorf("%s: Fields name\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
}

func xmlAttr(s string) []byte {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return []byte(strings.ReplaceAll(b.String(), "&#34;", "&quot;"))
}

// TestListsAreBounded: ten long keys, each at its budget, do not make one
// line longer than a few values.
func TestListsAreBounded(t *testing.T) {
	f := New(DefaultOptions())
	var keys []string
	for i := range 100000 {
		keys = append(keys, strings.Repeat(string(rune('a'+i%26)), 1000)+string(rune('0'+i%10)))
	}
	list := issues.List{{Code: issues.UnrecognizedKeys, Input: map[string]any{}, Keys: keys, Allowed: []string{"name"}}}
	line := string(f.AppendLine(nil, &list[0]))
	if len(line) > 1400 {
		t.Errorf("line of %d bytes:\n%s", len(line), line)
	}
	if !strings.Contains(line, "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa…' (1001 characters), ") ||
		!strings.Contains(line, ", and 99994 more") {
		t.Errorf("the rest is not counted:\n%s", line)
	}
}

// TestOmittedIssuesAreCounted: the issue an adapter appends for issues it
// counted but did not build is no line, and its count joins the note.
func TestOmittedIssuesAreCounted(t *testing.T) {
	f := New(Options{MaxIssues: 2})
	list := issues.List{
		{Code: issues.InvalidType, Path: issues.Path{"b"}, Input: 1, Expected: issues.TypeString},
		{Code: issues.InvalidType, Path: issues.Path{"a"}, Input: 1, Expected: issues.TypeString},
		{Code: issues.InvalidType, Path: issues.Path{"c"}, Input: 1, Expected: issues.TypeString},
		issuesx.Omitted(997),
	}
	out := string(f.AppendValidation(nil, "x", list))
	if n := strings.Count(out, "<field "); n != 2 {
		t.Errorf("%d lines:\n%s", n, out)
	}
	if !strings.Contains(out, "998 more") {
		t.Errorf("want 998 more (one over the issue budget, 997 counted):\n%s", out)
	}
	fields, more, _ := f.Fields(list)
	if len(fields) != 2 || !strings.Contains(more, "998 more") {
		t.Errorf("Fields: %d, %q", len(fields), more)
	}
	all := New(Options{MaxIssues: -1})
	fields, more, _ = all.Fields(list)
	if len(fields) != 3 || !strings.Contains(more, "997 more") {
		t.Errorf("no issue budget: %d, %q", len(fields), more)
	}
	if got := list.Error(); got != "b: invalid_type; a: invalid_type; c: invalid_type; and 997 more" {
		t.Errorf("Error() = %q", got)
	}
}

// TestBounded: the structured issues (Fields) are bounded like the text.
func TestBounded(t *testing.T) {
	f := New(DefaultOptions())
	big := strings.Repeat("k", 10<<20)
	var keys []string
	for i := range 100000 {
		keys = append(keys, "x"+strings.Repeat("y", i%3)+string(rune('a'+i%26)))
	}
	var many issues.List
	for i := range 100 {
		many = append(many, issues.Issue{Code: issues.InvalidType, Path: issues.Path{"items", i}, Input: big, Expected: issues.TypeInteger})
	}
	tests := []struct {
		name   string
		list   issues.List
		issues int
		max    int // bytes of JSON
	}{
		{"long key in a path", issues.List{{Code: issues.InvalidType, Path: issues.Path{"meta", big}, Input: 1, Expected: issues.TypeString}}, 1, 400},
		{"long unknown key", issues.List{{Code: issues.UnrecognizedKeys, Input: map[string]any{big: 1}, Keys: []string{big}}}, 1, 400},
		{"100k unknown keys", issues.List{{Code: issues.UnrecognizedKeys, Input: map[string]any{}, Keys: keys}}, 1, 400},
		{"long repeated value", issues.List{{Code: issues.Custom, Check: issues.CheckUnique, Input: []any{big, big}, Values: []any{big, map[string]any{"a": big}}}}, 1, 600},
		{"long message", issues.List{{Code: issues.Custom, Message: big}}, 1, 400},
		{"100 issues", many, 20, 4 << 10},
		{"counted", append(issues.List{many[0]}, issuesx.Omitted(5)), 1, 200},
	}
	for _, tc := range tests {
		got := bounded(f, tc.list)
		data, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(got) != tc.issues || len(data) > tc.max {
			t.Errorf("%s: %d issues, %d bytes of JSON:\n%.600s", tc.name, len(got), len(data), data)
		}
		if strings.Contains(string(data), `"input"`) {
			t.Errorf("%s: an input leaked: %.300s", tc.name, data)
		}
	}
	if tc := tests[0]; tc.list[0].Path[1] != big {
		t.Error("Fields modified its argument")
	}
}

// TestBestBranchCountsOmitted: a union's alternative that an adapter capped
// holds the issues it counted too, so the other one is closer.
func TestBestBranchCountsOmitted(t *testing.T) {
	many := func(n int, expected issues.Types) []issues.Issue {
		var out []issues.Issue
		for i := range n {
			out = append(out, issues.Issue{Code: issues.InvalidType, Path: issues.Path{i}, Input: 1, Expected: expected})
		}
		return out
	}
	capped := append(many(issuesx.BuildLimit, issues.TypeString), issuesx.Omitted(5000))
	union := issues.Issue{Code: issues.InvalidUnion, Input: []any{}, Branches: [][]issues.Issue{capped, many(1001, issues.TypeBoolean)}}
	if best := bestBranch(&union); len(best) != 1001 || best[0].Expected != issues.TypeBoolean {
		t.Errorf("best branch has %d issues, expects %s", len(best), best[0].Expected)
	}
}

// TestBoundedLeavesList: Fields does not modify the list it bounds, and
// bounds it the same way each time.
func TestBoundedLeavesList(t *testing.T) {
	long := strings.Repeat("é", 300)
	var fifteen, seventeen issues.List
	for i := range 17 {
		is := issues.Issue{Code: issues.InvalidType, Path: issues.Path{"items", (i * 7) % 17}, Input: long, Expected: issues.TypeInteger, Message: long}
		if i < 15 {
			fifteen = append(fifteen, is)
		}
		seventeen = append(seventeen, is)
	}
	for _, tc := range []struct {
		name string
		opts func(*Options)
		list issues.List
	}{
		{"empty", nil, nil},
		{"only counted", nil, issues.List{issuesx.Omitted(3)}},
		{"out of order, equal paths kept in order", nil, issues.List{
			{Code: issues.TooSmall, Path: issues.Path{"b"}, Minimum: "1", Origin: "number"},
			{Code: issues.InvalidType, Path: issues.Path{"a"}, Expected: issues.TypeString, Input: 1},
			issuesx.Omitted(2),
			{Code: issues.Custom, Path: issues.Path{"a"}, Message: "second"},
			{Code: issues.UnrecognizedKeys, Keys: []string{long, "b"}, Input: map[string]any{}},
			{Code: issues.InvalidValue, Path: issues.Path{"c", 0}, Values: []any{"x", json.Number("1"), map[string]any{"k": long}}, Input: "y"},
		}},
		{"fifteen past the byte budget", nil, fifteen},
		{"seventeen", nil, seventeen},
		{"issue budget", func(o *Options) { o.MaxIssues = 3 }, fifteen},
	} {
		o := DefaultOptions()
		if tc.opts != nil {
			tc.opts(&o)
		}
		f := New(o)
		in := slices.Clone(tc.list)
		want := bounded(f, in)
		if !reflect.DeepEqual(in, tc.list) {
			t.Errorf("%s: Fields modified its list", tc.name)
		}
		if got := bounded(f, in); !reflect.DeepEqual(got, want) {
			w, _ := json.Marshal(want)
			g, _ := json.Marshal(got)
			t.Errorf("%s: Bounded gave\n%.800s\nthen\n%.800s", tc.name, w, g)
		}
	}
}

// TestBoundedDeepPaths: a path nested to the adapters' depth limit keeps
// its first element and as many of its last as fit a field name, with one
// "…" for the rest; a first issue too big for the budget keeps its facts
// but not its alternatives. CI's FuzzBudget found 4.4 KiB of JSON for one
// issue under a 300-byte budget: 64 keys of '&', each written \u0026.
func TestBoundedDeepPaths(t *testing.T) {
	deep := func(n int, key string) issues.Path {
		p := issues.Path{"any"}
		for range n {
			p = append(p, key)
		}
		return p
	}
	amps := strings.Repeat("&", 40)
	union := func(p issues.Path) issues.Issue {
		br := make([][]issues.Issue, 10)
		for i := range br {
			for j := range 10 {
				br[i] = append(br[i], issues.Issue{Code: issues.InvalidType, Path: append(p[:len(p):len(p)], j), Input: 1.0, Expected: issues.TypeString})
			}
		}
		return issues.Issue{Code: issues.InvalidUnion, Path: p, Input: 1.0, Branches: br}
	}
	tests := []struct {
		name     string
		is       issues.Issue
		maxBytes int
		path     string // the bounded path, as issues.Path.String writes it
		branches int
	}{
		{"short path, kept", issues.Issue{Code: issues.InvalidType, Path: deep(3, "a"), Expected: issues.TypeString}, 300,
			"any.a.a.a", 0},
		{"deep path of short keys", issues.Issue{Code: issues.InvalidType, Path: deep(63, "a"), Expected: issues.TypeString}, 300,
			`any["…"]` + strings.Repeat(".a", 48), 0},
		{"deep path of escaped keys", issues.Issue{Code: issues.TooBig, Path: deep(63, amps), Origin: "depth", Maximum: "64"}, 300,
			`any["…"]["` + amps + `"]`, 0},
		// A union is the issues of the alternative the text shows, each
		// at its own path, as the text's lines are.
		{"union fits", union(deep(2, "a")), 64 << 10, "any.a.a[0]", 0},
		{"union over the budget", union(deep(2, "a")), 300, "any.a.a[0]", 0},
	}
	for _, tc := range tests {
		f := New(Options{MaxBytes: tc.maxBytes})
		in := issues.List{tc.is}
		got := bounded(f, in)
		data, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) == 0 || got[0].Path.String() != tc.path || len(got[0].Branches) != tc.branches {
			t.Errorf("%s: path %s, %d alternatives; want %s, %d", tc.name, got[0].Path, len(got[0].Branches), tc.path, tc.branches)
		}
		if tc.branches == 0 && len(data) > 1500 {
			t.Errorf("%s: %d bytes of JSON:\n%.600s", tc.name, len(data), data)
		}
	}
}

// bounded is the issues Fields gives beside the lines.
func bounded(f *Formatter, list issues.List) issues.List {
	_, _, shown := f.Fields(list)
	return shown
}

// TestJSONBound: jsonBound is at least the length of the JSON of an issue
// with every field set, strings that escape to six bytes a byte, and the
// same inside its inner issues. A field added to issues.Issue that the
// filler below cannot set fails the test until it and jsonBound know it.
func TestJSONBound(t *testing.T) {
	worst := strings.Repeat("<\x01\xff", 20) + "\u2028"
	var fill func(v reflect.Value, depth int)
	fill = func(v reflect.Value, depth int) {
		for i := range v.NumField() {
			f, name := v.Field(i), v.Type().Field(i).Name
			switch {
			case name == "Absent":
				// Input is written when not absent; a bounded issue is.
			case name == "Input" || name == "Key":
				f.Set(reflect.ValueOf(map[string]any{worst: []any{worst, 1.5e-300}}))
			case name == "Values":
				f.Set(reflect.ValueOf([]any{worst, -9223372036854775808, 1.2345678901234567e-308, json.Number("12"), nil, true, []any{worst}}))
			case name == "Expected":
				f.Set(reflect.ValueOf(issues.TypeString.Or(issues.TypeNumber).Or(issues.TypeInteger).Or(issues.TypeBoolean).Or(issues.TypeObject).Or(issues.TypeArray).Or(issues.TypeNull)))
			case name == "Path":
				f.Set(reflect.ValueOf(issues.Path{worst, 123456789, worst}))
			case name == "Ref":
				f.Set(reflect.ValueOf(&issues.Ref{Path: issues.Path{worst}, Value: worst}))
			case name == "When":
				f.Set(reflect.ValueOf(&issues.Condition{Op: issues.CondEquals, Fields: []issues.Path{{worst}}, Values: []any{worst}}))
			case name == "Issues" || name == "Branches":
				if depth < 2 {
					var inner issues.Issue
					fill(reflect.ValueOf(&inner).Elem(), depth+1)
					if name == "Issues" {
						f.Set(reflect.ValueOf([]issues.Issue{inner, inner}))
					} else {
						f.Set(reflect.ValueOf([][]issues.Issue{{inner}, {inner, inner}}))
					}
				}
			case f.Kind() == reflect.String:
				f.SetString(worst)
				if f.Type() == reflect.TypeFor[issues.Number]() {
					f.SetString("-1.5e-300")
				}
			case f.Kind() == reflect.Bool:
				f.SetBool(true)
			case f.Type() == reflect.TypeFor[[]string]():
				f.Set(reflect.ValueOf([]string{worst, "", worst}))
			default:
				t.Fatalf("issues.Issue.%s (%s): teach TestJSONBound and jsonBound this field", name, f.Type())
			}
		}
	}
	var is issues.Issue
	fill(reflect.ValueOf(&is).Elem(), 0)
	for _, tc := range []issues.Issue{is, {Code: issues.InvalidType, Absent: true}, {Code: issues.TooSmall, Minimum: "1e9999", Absent: true}} {
		data, err := tc.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if b := jsonBound(&tc); b < len(data) {
			t.Errorf("jsonBound %d < %d bytes of JSON:\n%s", b, len(data), data)
		}
	}
}

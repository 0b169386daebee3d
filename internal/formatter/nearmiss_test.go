package formatter

import (
	"slices"
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

// A near miss in an open schema is worded as what was meant, never as the
// "only" keys of a closed one, and renders without allocating once warm.
func TestNearMiss(t *testing.T) {
	list := issues.List{
		{Code: issues.UnrecognizedKeys, Path: P{}, Input: map[string]any{"path": "a", "dryrun": true},
			Keys: []string{"dryrun"}, Allowed: []string{"dryRun"}, Check: issues.CheckNearMiss, Source: nearmiss.SourceTypo},
		{Code: issues.UnrecognizedKeys, Path: P{"opts"}, Input: map[string]any{"dry_run": true, "dryrun": true},
			Keys: []string{"dry_run", "dryrun"}, Allowed: []string{"dryRun"}, Check: issues.CheckNearMiss, Source: nearmiss.SourceTypo},
	}
	for _, tc := range []struct {
		f    *Formatter
		want []string
	}{
		{New(DefaultOptions()), []string{
			"Unknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.",
			"Unknown keys; did you mean 'dryRun'? You sent: 'dry_run','dryrun'. Expected those keys: the tool ignores unknown keys.",
		}},
		{New(Options{Catalog: catalog.Match("ja")}), []string{
			"不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。",
			"不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dry_run','dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。",
		}},
	} {
		for i := range list {
			if got := string(tc.f.AppendLine(nil, &list[i])); got != tc.want[i] {
				t.Errorf("got  %s\nwant %s", got, tc.want[i])
			}
		}
		if race.Enabled {
			continue
		}
		buf := tc.f.AppendValidation(nil, "edit_file", list)
		if n := testing.AllocsPerRun(200, func() { buf = tc.f.AppendValidation(buf[:0], "edit_file", list) }); n != 0 {
			t.Errorf("AppendValidation allocates %v times per call", n)
		}
	}
}

// A near miss of a required property is worded with its missing issue as
// one line at the property, as a closed schema's unrecognized key is: the
// key found by the same rule as the adapter's (the same name written
// another way first); the object's line keeps the other keys and only what
// they stand for.
func TestNearMissRequired(t *testing.T) {
	obj := map[string]any{"dryrun": true, "q-u-e-r-y": "x", "tpe": "a"}
	list := issues.List{
		{Code: issues.InvalidType, Path: P{"query"}, Absent: true, Expected: issues.TypeString, Source: "jsonschema:required"},
		{Code: issues.InvalidType, Path: P{"type"}, Absent: true, Expected: issues.TypeString, Source: "jsonschema:required"},
		{Code: issues.UnrecognizedKeys, Path: P{}, Input: obj, Keys: []string{"dryrun", "q-u-e-r-y", "tpe"},
			Allowed: []string{"dryRun", "query", "type"}, Check: issues.CheckNearMiss, Source: nearmiss.SourceTypo},
	}
	for _, tc := range []struct {
		f    *Formatter
		want []string
	}{
		{New(DefaultOptions()), []string{
			"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.",
			"query\tMissing. You sent: the unknown key 'q-u-e-r-y'. Expected a string.",
			"type\tMissing. You sent: the unknown key 'tpe'. Expected a string.",
		}},
		{New(Options{Catalog: catalog.Match("ja")}), []string{
			"(root)\t不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。",
			"query\t必須です。送信値: 不明なキー 'q-u-e-r-y'。期待: 文字列。",
			"type\t必須です。送信値: 不明なキー 'tpe'。期待: 文字列。",
		}},
	} {
		fields, _, _ := tc.f.Fields(list)
		var got []string
		for _, fl := range fields {
			got = append(got, fl.Name+"\t"+fl.Text)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("got  %q\nwant %q", got, tc.want)
		}
		if race.Enabled {
			continue
		}
		buf := tc.f.AppendValidation(nil, "search", list)
		if n := testing.AllocsPerRun(200, func() { buf = tc.f.AppendValidation(buf[:0], "search", list) }); n != 0 {
			t.Errorf("AppendValidation allocates %v times per call", n)
		}
	}
}

package formatter

import (
	"testing"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/race"
	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/locales"
)

// A near miss in an open schema is worded as what was meant, never as the
// "only" keys of a closed one, and renders without allocating once warm.
func TestNearMiss(t *testing.T) {
	list := issues.List{
		{Code: issues.UnrecognizedKeys, Path: P{}, Input: map[string]any{"path": "a", "dryrun": true},
			Keys: []string{"dryrun"}, Allowed: []string{"dryRun"}, Check: issues.CheckNearMiss, Source: issuesx.SourceTypo},
		{Code: issues.UnrecognizedKeys, Path: P{"opts"}, Input: map[string]any{"dry_run": true, "dryrun": true},
			Keys: []string{"dry_run", "dryrun"}, Allowed: []string{"dryRun"}, Check: issues.CheckNearMiss, Source: issuesx.SourceTypo},
	}
	for _, tc := range []struct {
		f    *Formatter
		want []string
	}{
		{New(DefaultOptions()), []string{
			"Unrecognized key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores keys it does not declare.",
			"Unrecognized keys; did you mean 'dryRun'? You sent: 'dry_run', 'dryrun'. Expected those keys: the tool ignores keys it does not declare.",
		}},
		{New(Options{Catalog: locales.Match("ja")}), []string{
			"不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。",
			"不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dry_run', 'dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。",
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

package jsonschematest

import (
	"testing"

	"github.com/selfheal/selfheal"
)

// SiteEngines are the engines a test of site lines (see issuesx.Site) words
// a list with, through its sites and without: in English, in Japanese with
// short values, and with messages whose text after a value could complete
// an XML "]]>" or a character, the three ways a site's line could read
// otherwise than a line worded afresh.
func SiteEngines(tb testing.TB) []*selfheal.Engine {
	tb.Helper()
	odd, err := selfheal.New().WithTemplates(map[string]string{
		"too_small.string":     "{sent}]>{size}] short",
		"too_big.array":        "{sent}]>{size}",
		"invalid_format":       "{sent}]]>{format_expected}",
		"invalid_type.missing": "]{sent}>",
		// Value lines: the value chooses the message, the rest is the site's.
		"invalid_type.quoted_number": "{unquoted}]>{expected}",
		"invalid_value.suggest":      "{suggestion}]]>{sent}{allowed}",
		"custom.unique":              "{allowed}]>{sent}",
		"unrecognized_keys.missing":  "{suggestion}: {inner} ({keys})",
	})
	if err != nil {
		tb.Fatal(err)
	}
	return []*selfheal.Engine{
		selfheal.New(),
		selfheal.New(selfheal.WithLocale("ja"), selfheal.WithMaxValueRunes(5)),
		odd,
	}
}

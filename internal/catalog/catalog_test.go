package catalog_test

import (
	"math"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/templates"
)

func TestPluralForms(t *testing.T) {
	en, ja := catalog.Match("en"), catalog.Match("ja")
	for _, tt := range []struct {
		c    *catalog.Catalog
		n    int64
		want templates.Form
	}{
		{en, 1, templates.One}, {en, 0, templates.Other}, {en, 2, templates.Other}, {en, -1, templates.One},
		{en, 1 << 40, templates.Other}, {en, math.MinInt64, templates.Other}, {en, 63, templates.Other}, {en, 64, templates.Other},
		{ja, 1, templates.Other}, {ja, 5, templates.Other},
	} {
		if got := tt.c.Form(tt.n); got != tt.want {
			t.Errorf("%v Form(%d) = %v, want %v", tt.c.Tag(), tt.n, got, tt.want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct{ tag, data, want string }{
		{"en", `{"a": "{nope}"}`, "unknown placeholder"},
		{"en", `{"a": {"one": "x"}}`, "other"},
		{"en", `{"a": 3}`, "want a string or an object"},
		{"en", `{"a..b": "x"}`, "empty part"},
		{"en", `[`, "unexpected end"},
		{"not a tag!", `{}`, "catalog tag"},
	}
	for _, tt := range tests {
		_, err := catalog.Parse(tt.tag, []byte(tt.data))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Parse(%q, %s) = %v, want an error mentioning %q", tt.tag, tt.data, err, tt.want)
		}
	}
}

func TestWith(t *testing.T) {
	en := catalog.Default()
	c, err := en.With(map[string]string{"custom": "Custom: {message}. Sent {sent}."}, en)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Message("custom", "", "").Template(templates.Other).Source(); got != "Custom: {message}. Sent {sent}." {
		t.Errorf("override not applied: %q", got)
	}
	if got := en.Message("custom", "", "").Template(templates.Other).Source(); got == "Custom: {message}. Sent {sent}." {
		t.Error("override changed the shared default catalog")
	}
	if _, err := en.With(map[string]string{"custom": "{messsage}"}, en); err == nil || !strings.Contains(err.Error(), "unknown placeholder") {
		t.Errorf("bad placeholder: %v", err)
	}
	if _, err := en.With(map[string]string{"no_such_key": "x"}, en); err == nil || !strings.Contains(err.Error(), "unknown message key") {
		t.Errorf("unknown key: %v", err)
	}
}

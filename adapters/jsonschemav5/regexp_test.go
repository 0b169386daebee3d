package jsonschemav5_test

import (
	"strings"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
)

// Version 5 compiles patterns with Go's regexp and cannot be given another
// engine: an ECMAScript-only pattern is an error of Compile that says so.
// (It is never a panic: the library's meta-schema check refuses such a
// pattern before its regexp.MustCompile sees it, in every draft, also in a
// subschema reached only by $ref.)
func TestECMAScriptPatternIsAnError(t *testing.T) {
	const hint = "is not a Go regular expression: version 5 compiles patterns with Go's regexp (RE2: no lookaround, no backreferences), while JSON Schema's are ECMAScript; jsonschemav6 reads them"
	for _, tc := range []struct{ schema, pattern string }{
		{`{"properties": {"user": {"pattern": "^(?!admin)"}}}`, "^(?!admin)"},
		{`{"patternProperties": {"^(?<=x)a": {}}}`, "^(?<=x)a"},
		{`{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"q": {"pattern": "^(a)\\1$"}}}`, `^(a)\1$`},
		{`{"$schema": "http://json-schema.org/draft-04/schema#", "patternProperties": {"^(?!x)": {}}}`, "^(?!x)"},
		{`{"$defs": {"d": {"pattern": "(?=a)"}}, "properties": {"a": {"$ref": "#/$defs/d"}}}`, "(?=a)"},
		{`{"x-unknown": {"pattern": "(?=a)"}, "properties": {"a": {"$ref": "#/x-unknown"}}}`, "(?=a)"},
	} {
		_, err := jsonschemav5.Compile([]byte(tc.schema))
		if err == nil || !strings.Contains(err.Error(), `the pattern "`+strings.ReplaceAll(tc.pattern, `\`, `\\`)+`" `+hint) {
			t.Errorf("%s: %v", tc.schema, err)
		}
	}
	// A schema that fails for another reason does not blame its patterns.
	_, err := jsonschemav5.Compile([]byte(`{"type": "objekt", "pattern": "^[a-z]+$"}`))
	if err == nil || strings.Contains(err.Error(), "regular expression") {
		t.Errorf("got %v", err)
	}
}

package bench

import (
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/testkit/race"
)

// patternCases are valid calls of a tool whose schema has a pattern: one
// Go's regexp reads as ECMAScript does (Compile keeps Go's regexp), one
// with ECMAScript's \S (Compile reads it with regexp2), and a lookahead
// beside the closest pattern Go's regexp compiles.
var patternCases = []struct {
	name, pattern, goPattern, value string
}{
	{"digits", `^\d{3}-\d{4}$`, `^\d{3}-\d{4}$`, "150-0001"},
	{"nonspace", `^\S+@\S+$`, `^\S+@\S+$`, "someone.else@example.com"},
	{"lookahead", `^(?!admin)[a-z0-9_]{3,16}$`, `^[a-z0-9_]{3,16}$`, "alice_42"},
}

func patternSchema(pattern string) []byte {
	return []byte(`{"type": "object", "required": ["v"], "properties": {
		"v": {"type": "string", "pattern": "` + jsonEscape(pattern) + `"},
		"n": {"type": "integer", "minimum": 1}}}`)
}

func jsonEscape(s string) string {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' || s[i] == '"' {
			out = append(out, '\\')
		}
		out = append(out, s[i])
	}
	return string(out)
}

// compilePatterns compiles the case with Compile's engines (ecmascript)
// and with the library's Go regexp (goregexp), as Compile did before.
func compilePatterns(tb testing.TB, pattern, goPattern string) (ecma, goRe *jsonschemav6.Schema) {
	tb.Helper()
	ecma, err := jsonschemav6.Compile(patternSchema(pattern))
	if err != nil {
		tb.Fatal(err)
	}
	goRe, err = jsonschemav6.Compile(patternSchema(goPattern),
		jsonschemav6.WithCompiler(func(c *jsonschema.Compiler) { c.UseRegexpEngine(nil) }))
	if err != nil {
		tb.Fatal(err)
	}
	return ecma, goRe
}

// BenchmarkPattern times a valid call against a schema with a pattern,
// read by Compile's engine choice (ecmascript) and by Go's regexp alone
// (goregexp, the library's default):
//
//	go test -run '^$' -bench Pattern -benchmem -count 6 ./bench/
func BenchmarkPattern(b *testing.B) {
	for _, tc := range patternCases {
		ecma, goRe := compilePatterns(b, tc.pattern, tc.goPattern)
		args := map[string]any{"v": tc.value, "n": 3.0}
		for _, side := range []struct {
			name string
			s    *jsonschemav6.Schema
		}{{"ecmascript", ecma}, {"goregexp", goRe}} {
			if list := side.s.Validate(args); list != nil {
				b.Fatalf("%s/%s: %v", tc.name, side.name, list)
			}
			b.Run(tc.name+"/"+side.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = side.s.Validate(args)
				}
			})
		}
	}
}

// A valid call allocates no more with Compile's engines than with Go's
// regexp alone.
func TestPatternAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	for _, tc := range patternCases {
		ecma, goRe := compilePatterns(t, tc.pattern, tc.goPattern)
		args := map[string]any{"v": tc.value, "n": 3.0}
		e := testing.AllocsPerRun(100, func() { _ = ecma.Validate(args) })
		g := testing.AllocsPerRun(100, func() { _ = goRe.Validate(args) })
		if e > g {
			t.Errorf("%s: %v allocations per valid call, %v with Go's regexp", tc.name, e, g)
		}
	}
}

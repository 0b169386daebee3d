package jsonschemav6

import (
	"regexp"
	"testing"

	"github.com/dlclark/regexp2/v2"
)

// Each pattern is read by the engine that reads it as its author meant:
// Go's regexp when it reads it as ECMAScript does, regexp2 in ECMAScript
// mode otherwise, Go's regexp for its own dialect, ECMAScript without the
// u flag last.
func TestCompilePatternEngine(t *testing.T) {
	for _, tc := range []struct{ pattern, want string }{
		{`^\d{5}$`, "go"},
		{`^[a-z0-9._%+-]+@[a-z0-9.-]+\.[a-z]{2,}$`, "go"}, // "." in a class, "\." escaped
		{`^\p{L}+$`, "go"},
		{`^(a+)+$`, "go"}, // linear in Go: no need to bound it
		{`a\\s`, "go"},    // an escaped backslash, then "s"
		{`^.+$`, "ecmascript"},
		{`^\S+@\S+$`, "ecmascript"},
		{`[\s\S]`, "ecmascript"},
		{`^(?!admin)`, "ecmascript"},
		{`(?<=\$)\d+`, "ecmascript"},
		{`^(['"]).*\1$`, "ecmascript"},
		{`^\p{Script=Greek}+$`, "ecmascript"},
		{`^\cC$`, "ecmascript"},
		{`[^]`, "ecmascript"},
		{`(?P<id>\d+)`, "go"}, // Python's named group
		{`^\pL+$`, "go"},
		{`^\pL.$`, "go"}, // not ECMAScript: Go's "." then
		{`[[:alpha:]]`, "go"},
		{`\Q.\E`, "go"},
		{`^(?!-)[\w-.]+$`, "ecmascript without u"},
		{`^(?!x)\-$`, "ecmascript without u"},
		{`^(abc$`, "none"},
		{`[z-a]`, "none"},
		{`(?P<n>a)(?P=n)`, "none"},
	} {
		re, err := compilePattern(tc.pattern)
		got := "none"
		switch re.(type) {
		case *regexp.Regexp:
			got = "go"
		case *ecmaRegexp:
			got = "ecmascript"
			if _, uErr := regexp2.Compile(tc.pattern, regexp2.ECMAScript|regexp2.Unicode); uErr != nil {
				got = "ecmascript without u"
			}
		}
		if got != tc.want || (err != nil) != (tc.want == "none") {
			t.Errorf("%s: read by %s (error %v), want %s", tc.pattern, got, err, tc.want)
		}
		if err == nil && re.String() != tc.pattern {
			t.Errorf("%s: String() = %q", tc.pattern, re.String())
		}
	}
}

package jsonschemav6

import (
	"regexp"
	"time"

	"github.com/dlclark/regexp2/v2"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/internal/schema"
)

// matchTimeout bounds one match of a pattern that only the backtracking
// engine reads (lookaround, backreferences): such a pattern can take
// exponential time on a crafted string ("^(?=a)(a+)+$" against thirty a's
// and a b). A pattern over a tool's argument matches in microseconds, so
// 100 ms leaves it a margin of thousands; the engine's clock ticks every
// 100 ms, so a smaller value would not be honoured anyway (a match is cut
// after 100 to 200 ms); and a model waits seconds for its round trip, so a
// call that meets such a pattern stays well within what a client waits.
const matchTimeout = 100 * time.Millisecond

// patternEngine compiles the regular expressions of a schema (pattern,
// patternProperties, and the meta-schema's format "regex" check of them)
// for the library. JSON Schema's patterns are ECMAScript regular
// expressions; see compilePattern for the engine each one is read with.
type patternEngine struct {
	// skip, when set, is told of each pattern no engine compiles, which
	// then matches everything (see WithUncompilablePatterns). Compile
	// clears it once the schema is compiled: after that the engine only
	// judges instances of format "regex", which are the model's values,
	// not the schema's patterns.
	skip func(pattern string, err error)
	// skipped holds the patterns skip was told of, so that it is told once
	// of a pattern the library compiles twice (the meta-schema's check,
	// then the keyword) or that the schema repeats.
	skipped map[string]bool
}

// compile is the library's RegexpEngine.
func (e *patternEngine) compile(pattern string) (jsonschema.Regexp, error) {
	re, err := compilePattern(pattern)
	if err == nil || e.skip == nil {
		return re, err
	}
	if !e.skipped[pattern] {
		if e.skipped == nil {
			e.skipped = map[string]bool{}
		}
		e.skipped[pattern] = true
		e.skip(pattern, err)
	}
	return matchAll(pattern), nil
}

// compilePattern compiles pattern with the first engine that reads it as
// its author meant:
//
//  1. Go's regexp, when it compiles pattern and reads it as ECMAScript
//     does (see readAlikeInGo): most patterns ("^\d{5}$", "^[a-z-]+$"),
//     which it matches in linear time without allocating.
//  2. regexp2 in ECMAScript mode with the u flag, as JSON Schema reads
//     patterns: lookaround, backreferences, \p{Letter}, \cC, [^], and the
//     ECMAScript meaning of ".", \s and \S.
//  3. Go's regexp, for a pattern ECMAScript refuses but Go reads: the
//     dialect of the servers written in Python, Rust or Go ((?P<name>…),
//     \pL, [[:alpha:]], \Q…\E).
//  4. regexp2 in ECMAScript mode without the u flag, as a JavaScript
//     RegExp built without it reads the pattern (zod's .regex(), a plain
//     new RegExp): a class such as [\w-.], an identity escape such as \-
//     outside a class.
//
// The error, when none compiles it, is ECMAScript's: the language the
// pattern should have been written in.
func compilePattern(pattern string) (jsonschema.Regexp, error) {
	goRe, goErr := regexp.Compile(pattern)
	if goErr == nil && readAlikeInGo(pattern) {
		return goRe, nil
	}
	es, esErr := regexp2.Compile(pattern, regexp2.ECMAScript|regexp2.Unicode)
	if esErr == nil {
		return newECMARegexp(es), nil
	}
	if goErr == nil {
		return goRe, nil
	}
	if es, err := regexp2.Compile(pattern, regexp2.ECMAScript); err == nil {
		return newECMARegexp(es), nil
	}
	return nil, esErr
}

// readAlikeInGo reports whether Go's regexp, given a pattern it compiles,
// matches the same strings as ECMAScript. They part on "." outside a class
// (ECMAScript's also leaves out \r, U+2028 and U+2029) and on \s and \S
// (ECMAScript's white space also has \v, U+00A0, U+FEFF and the Unicode
// space separators). A "." inside a class is literal in both, and an
// escaped one too. The scan is lexical and errs towards false, which only
// hands a pattern to the ECMAScript engine: a class opened inside a class
// ("[[:alpha:].]") closes at its first "]" here.
func readAlikeInGo(pattern string) bool {
	inClass := false
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
			if i < len(pattern) && (pattern[i] == 's' || pattern[i] == 'S') {
				return false
			}
		case '[':
			inClass = true
		case ']':
			inClass = false
		case '.':
			if !inClass {
				return false
			}
		}
	}
	return true
}

// ecmaRegexp is a pattern read by regexp2, with its match time bounded.
type ecmaRegexp regexp2.Regexp

func newECMARegexp(re *regexp2.Regexp) *ecmaRegexp {
	re.MatchTimeout = matchTimeout
	return (*ecmaRegexp)(re)
}

// MatchString reports a match the engine gave up on (past matchTimeout,
// or past its backtracking limit) as a match: what selfheal could not
// judge it does not refuse, and the server decides. Under a heavily loaded
// machine the engine's clock can also cut a fast match short; that too
// only lets a value through.
func (re *ecmaRegexp) MatchString(s string) bool {
	ok, err := (*regexp2.Regexp)(re).MatchString(s)
	return ok || err != nil
}

func (re *ecmaRegexp) String() string {
	return (*regexp2.Regexp)(re).String()
}

// matchAll stands for a pattern no engine compiles, skipped as
// WithUncompilablePatterns asks: it matches every string, so that pattern
// never fails, and it is still known by its text. As a key of
// patternProperties it would apply its subschema to every property:
// acceptSkippedKeys takes care of that.
type matchAll string

func (matchAll) MatchString(string) bool { return true }

func (p matchAll) String() string { return string(p) }

// acceptSkippedKeys makes each patternProperties entry of sch and its
// subschemas whose pattern was skipped accept any value: a property it may
// have been meant for is still covered (not additional, so
// additionalProperties: false does not refuse it) and its value is not
// checked, since which properties the entry is for cannot be known.
func acceptSkippedKeys(sch *jsonschema.Schema) {
	accept := true
	for _, x := range schema.Index(sch, read) {
		for re, sub := range x.PatternProperties {
			if _, skipped := re.(matchAll); skipped {
				skip := *sub
				skip.Bool = &accept
				x.PatternProperties[re] = &skip
			}
		}
	}
}

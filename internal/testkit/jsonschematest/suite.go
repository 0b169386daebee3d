package jsonschematest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/issues"
)

// SuiteDir is the copy of the JSON Schema Test Suite, relative to an
// adapter's package directory.
const SuiteDir = "../testdata/json-schema-test-suite"

// Config is what a case asks of the compiler.
type Config struct {
	Draft   string // "2020-12" or "7": the draft of a schema without $schema
	Formats bool   // assert "format"
	Content bool   // assert contentEncoding, contentMediaType, contentSchema
	// Remote returns the document of a remote reference from the suite's
	// remotes/ (http://localhost:1234/...), or an error.
	Remote func(url string) ([]byte, error)
}

// Validator validates one instance (decoded with UseNumber) and returns its
// issues, nil when valid.
type Validator func(instance any) issues.List

// Compiler compiles a schema for an adapter.
type Compiler func(schema []byte, cfg Config) (Validator, error)

// Result counts one group of cases.
type Result struct {
	// Cases run, and passed: the verdict is the suite's and, for an
	// invalid instance, the rendered validation_error is acceptable.
	Cases, Passed int
	// Unsupported counts cases whose schema the library refuses to
	// compile (listed in Library).
	Unsupported int
	// Verdict counts cases where the library's own verdict (valid or not)
	// differs from the suite's: no adapter can add or remove a failure the
	// library does not report (listed in Library).
	Verdict int
	// Library lists the cases of Unsupported and Verdict with the reason.
	Library []string
	// Failures lists the adapter's own failures: a failure reported
	// without an issue, or rendered unacceptably.
	Failures []string
}

type testGroup struct {
	Description string          `json:"description"`
	Schema      json.RawMessage `json:"schema"`
	Tests       []struct {
		Description string          `json:"description"`
		Data        json.RawMessage `json:"data"`
		Valid       bool            `json:"valid"`
	} `json:"tests"`
}

// Remote serves http://localhost:1234/... from the suite's remotes/.
func Remote(url string) ([]byte, error) {
	const host = "http://localhost:1234/"
	rest, ok := strings.CutPrefix(url, host)
	if !ok {
		return nil, fmt.Errorf("no such remote: %s", url)
	}
	return os.ReadFile(filepath.Join(SuiteDir, "remotes", filepath.FromSlash(rest)))
}

// Run runs every case of the suite for the drafts 2020-12 and 7 through
// compile, as subtests, and logs pass counts per draft and part (the
// required tests, optional/, optional/format/). known maps "file: group:
// test" to the reason a case is known to fail; a case that fails without
// being known, or is known but passes, fails the test. It returns a summary.
func Run(t *testing.T, adapter string, compile Compiler, known map[string]string) string {
	var summary strings.Builder
	fmt.Fprintf(&summary, "JSON Schema Test Suite (commit %s) through %s\n", commit(), adapter)
	seen := map[string]bool{}
	for _, draft := range []string{"2020-12", "7"} {
		dir := filepath.Join(SuiteDir, "tests", "draft"+draft)
		for _, part := range []string{"", "optional", "optional/format"} {
			files, _ := filepath.Glob(filepath.Join(dir, filepath.FromSlash(part), "*.json"))
			sort.Strings(files)
			var res Result
			for _, file := range files {
				rel, _ := filepath.Rel(filepath.Join(SuiteDir, "tests"), file)
				rel = filepath.ToSlash(rel)
				cfg := Config{Draft: draft, Remote: Remote}
				switch {
				case part == "optional/format":
					cfg.Formats = true
				case part == "" && draft == "7":
					// Draft 7's own vocabulary asserts formats; the
					// required format tests only check non-strings.
					cfg.Formats = true
				case rel == "draft7/optional/content.json":
					cfg.Content = true
				}
				runFile(t, rel, file, cfg, compile, known, seen, &res)
			}
			name := "draft" + draft
			if part != "" {
				name += "/" + part
			}
			line := fmt.Sprintf("%-28s %4d cases: %4d pass, %3d adapter failures, %3d library verdict differs, %3d schema rejected by the library",
				name, res.Cases, res.Passed, len(res.Failures), res.Verdict, res.Unsupported)
			t.Log(line)
			summary.WriteString(line + "\n")
			for _, f := range res.Failures {
				summary.WriteString("    FAIL    " + f + "\n")
			}
			for _, f := range res.Library {
				summary.WriteString("    LIBRARY " + f + "\n")
			}
		}
	}
	for k := range known {
		if !seen[k] {
			t.Errorf("known failure %q was not run: remove it", k)
		}
	}
	return summary.String()
}

func commit() string {
	b, _ := os.ReadFile(filepath.Join(SuiteDir, "COMMIT"))
	return strings.TrimSpace(string(b))
}

func runFile(t *testing.T, rel, file string, cfg Config, compile Compiler, known map[string]string, seen map[string]bool, res *Result) {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var groups []testGroup
	if err := json.Unmarshal(data, &groups); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	for _, g := range groups {
		validate, cerr := compile(g.Schema, cfg)
		for _, tc := range g.Tests {
			id := rel + ": " + g.Description + ": " + tc.Description
			res.Cases++
			reason, isKnown := known[id]
			if isKnown {
				seen[id] = true
			}
			if cerr != nil {
				res.Unsupported++
				res.Library = append(res.Library, id+": the library rejects the schema: "+lastLine(cerr.Error()))
				continue
			}
			fail, verdict := check(validate, tc.Data, tc.Valid)
			switch {
			case verdict:
				res.Verdict++
				res.Library = append(res.Library, id+": "+fail)
			case fail == "" && isKnown:
				t.Errorf("%s: known to fail (%s) but passes: remove it from the known failures", id, reason)
				res.Passed++
			case fail == "":
				res.Passed++
			case isKnown:
				res.Failures = append(res.Failures, id+": "+reason)
			default:
				res.Failures = append(res.Failures, id+": "+fail)
				t.Errorf("%s: %s", id, fail)
			}
		}
	}
}

// lastLine returns the innermost reason of a multi-line error, on one line.
func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimPrefix(strings.Join(strings.Fields(s), " "), "- ")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// check runs one case and returns why it failed, or "", and whether the
// failure is the library's verdict rather than the adapter's issues.
func check(validate Validator, data json.RawMessage, valid bool) (fail string, verdict bool) {
	defer func() {
		if r := recover(); r != nil {
			fail, verdict = fmt.Sprintf("panic: %v", r), false
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "bad test data: " + err.Error(), false
	}
	list := validate(v)
	if valid {
		if len(list) > 0 {
			return "the library rejects this valid instance: " + list.Error(), true
		}
		return "", false
	}
	if len(list) == 0 {
		return "the library accepts this invalid instance", true
	}
	return CheckRendered(list), false
}

var goSyntax = []string{"map[", "&{", "<nil>", "%!", "[]interface"}

// CheckRendered renders list through the facade and returns why the output
// is not acceptable, or "": it must parse as a validation_error with one
// field line per shown issue, and no line may use a generic fallback
// wording or show Go syntax.
func CheckRendered(list issues.List) string {
	out := selfheal.New().Format("suite.case", list)
	doc, err := envelope.Parse(out)
	if err != nil {
		return "rendered output does not parse: " + err.Error() + "\n" + out
	}
	if doc.Validation == nil || len(doc.Validation.Fields) == 0 {
		return "rendered output has no field line:\n" + out
	}
	for _, f := range doc.Validation.Fields {
		if f.Text == "" {
			return "empty field line:\n" + out
		}
		for _, g := range Generic() {
			if strings.Contains(f.Text, g.text) {
				return fmt.Sprintf("generic wording (%s) in %q", g.key, f.Text)
			}
		}
		for _, s := range goSyntax {
			if strings.Contains(f.Text, s) {
				return fmt.Sprintf("Go syntax %q in %q", s, f.Text)
			}
		}
	}
	return ""
}

type generic struct{ key, text string }

var placeholder = regexp.MustCompile(`\{[a-z_]+\}`)

// Generic returns, for each fallback message of the English catalog, its
// longest literal text between placeholders: a line that contains it used
// the fallback, at the top or inside a union or key.
func Generic() []generic {
	var out []generic
	for _, k := range [][3]string{{"custom", "bare", ""}, {"invalid_format", "other", ""},
		{"invalid_format", "unnamed", ""}, {"invalid_union", "bare", ""}} {
		m := catalog.Default().Message(k[0], k[1], k[2])
		if m == nil {
			continue
		}
		src := m.Template(m.Forms()[0]).Source()
		parts := placeholder.Split(src, -1)
		longest := slices.MaxFunc(parts, func(a, b string) int { return len(a) - len(b) })
		out = append(out, generic{k[0] + "." + k[1], longest})
	}
	return out
}

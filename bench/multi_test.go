package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/adapters/validatorv10"
	"github.com/selfheal/selfheal/internal/testkit/golden"
	"github.com/selfheal/selfheal/issues"
)

// multiBudget is the most a call of the multi-problem corpus may cost on
// average, in o200k tokens, in English (calls of the kind models send, 2
// to 5 problems each), on the 48 calls it held before issue 37's union
// calls. Issue 31's target is 110; the ceiling comes down with each change
// of wording until it gets there.
//
// 122.5, as issue 37 demands: its union rule made three calls name the
// alternative whose type matches (longer, and right), 122.5 → 123.8, and
// the one unknown key and the one missing field of an object merged into
// one line (formatter.mergeLone) brought it to 121.7.
const multiBudget = 122.5

// The multi-problem corpus (testdata/multi) is a set of failed tool calls
// of the kind models really send: a misspelt or camelCase key, a quoted
// number, an enum in the wrong case or a synonym of an allowed value, a
// date-time without a time zone, a value missing its pattern, a single
// value where a list is expected, a bound crossed. It lives in bench, not
// in internal/formatter, because its answers go through the path a server
// takes (a JSON Schema compiled by the jsonschemav6 adapter, validating the
// JSON arguments, or go-playground/validator on the decoded struct, then
// the Engine), which the formatter's own tests cannot import.
//
// tools/NAME.json are the tools' input schemas; calls.jsonl holds one call
// a line: its name, its tool and its arguments. A tool named v10.NAME is
// one of the structs below, validated with validator v10.
const multiDir = "testdata/multi"

// signup and booking are the corpus's validator v10 tools.
type signup struct {
	Username string `json:"username" validate:"required,alphanum,min=3,max=20"`
	Email    string `json:"email" validate:"required,email"`
	Age      int    `json:"age" validate:"gte=13,lte=130"`
	Country  string `json:"country" validate:"required,iso3166_1_alpha2"`
	Plan     string `json:"plan" validate:"required,oneof=free pro team enterprise"`
	Website  string `json:"website,omitempty" validate:"omitempty,url"`
}

type booking struct {
	HotelID string  `json:"hotel_id" validate:"required,uuid4"`
	CheckIn string  `json:"check_in" validate:"required,datetime=2006-01-02"`
	Nights  int     `json:"nights" validate:"required,min=1,max=30"`
	Room    string  `json:"room" validate:"required,oneof=single double twin suite"`
	Guests  []guest `json:"guests" validate:"required,min=1,max=4,dive"`
}

type guest struct {
	Name  string `json:"name" validate:"required"`
	Email string `json:"email,omitempty" validate:"omitempty,email"`
}

var structTools = map[string]func() any{
	"v10.signup":  func() any { return new(signup) },
	"v10.booking": func() any { return new(booking) },
}

type multiCall struct {
	Name      string          `json:"name"`
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
}

// multiAnswer is one call's failure: its issues and the validation_error
// of each locale.
type multiAnswer struct {
	call   multiCall
	issues issues.List
	text   map[string]string // locale → answer
}

var multiLocales = []string{"en", "ja"}

// multiAnswers validates every call of the corpus and words its failure in
// each locale.
func multiAnswers(t testing.TB) []multiAnswer {
	t.Helper()
	schemas := map[string]*jsonschemav6.Schema{}
	files, err := filepath.Glob(filepath.Join(multiDir, "tools", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tool schema in %s: %v", multiDir, err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// Near misses on, as the proxy has them by default.
		sch, err := jsonschemav6.Compile(data, jsonschemav6.WithTypos(true))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		schemas[strings.TrimSuffix(filepath.Base(f), ".json")] = sch
	}
	validate := validator.New()
	validate.RegisterTagNameFunc(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		return name
	})
	engines := map[string]*selfheal.Engine{}
	for _, l := range multiLocales {
		engines[l] = selfheal.New(selfheal.WithLocale(l))
	}

	data, err := os.ReadFile(filepath.Join(multiDir, "calls.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out []multiAnswer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var c multiCall
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("calls.jsonl: %v in %s", err, sc.Text())
		}
		var fail error
		if mk, ok := structTools[c.Tool]; ok {
			v := mk()
			if err := json.Unmarshal(c.Arguments, v); err != nil {
				t.Fatalf("%s: arguments do not decode into %s: %v", c.Name, c.Tool, err)
			}
			fail = validatorv10.Bind(validate.Struct(v), v)
		} else {
			sch := schemas[c.Tool]
			if sch == nil {
				t.Fatalf("%s: no schema for tool %s", c.Name, c.Tool)
			}
			if list := sch.ValidateJSON(c.Arguments); list != nil {
				fail = list
			}
		}
		list := engines["en"].Issues(fail)
		if n := len(list); n < 2 || n > 5 {
			t.Errorf("%s: %d problems, want 2 to 5: %v", c.Name, n, list)
		}
		a := multiAnswer{call: c, issues: list, text: map[string]string{}}
		for _, l := range multiLocales {
			a.text[l] = engines[l].Format(c.Tool, fail)
		}
		out = append(out, a)
	}
	if len(out) < 40 {
		t.Fatalf("the corpus has %d calls, want at least 40", len(out))
	}
	return out
}

// TestMultiAnswers compares every call's answer, in each locale, with
// testdata/multi/answers.LOCALE.golden (go test -update rewrites them).
func TestMultiAnswers(t *testing.T) {
	answers := multiAnswers(t)
	for _, l := range multiLocales {
		var b strings.Builder
		for _, a := range answers {
			fmt.Fprintf(&b, "== %s (%s)\n%s\n\n", a.call.Name, a.call.Tool, a.text[l])
		}
		golden.Check(t, "multi/answers."+l+".golden", []byte(b.String()))
	}
}

var fieldName = regexp.MustCompile(`^ *<field name="([^"]*)">`)

// TestMultiTokens counts the o200k tokens of every answer of the corpus and
// fails when an English call costs more than multiBudget on average. With
// -v it prints the figures the README quotes: per call, per locale, the
// envelope's share, and per issue code (a field line's tokens shared
// evenly among the issues it words):
//
//	go test -run TestMultiTokens -v ./bench
func TestMultiTokens(t *testing.T) {
	enc := o200k(t)
	answers := multiAnswers(t)
	avg := map[string]float64{}
	for _, l := range multiLocales {
		type agg struct {
			tokens float64
			n      int
		}
		byCode := map[issues.Code]*agg{}
		var total, env, lines int
		for _, a := range answers {
			text := a.text[l]
			n := countTokens(t, enc, text)
			total += n
			env += n
			// The issues each line words, by the name it carries.
			at := map[string][]issues.Code{}
			for _, is := range a.issues {
				p := is.Path.String()
				at[p] = append(at[p], is.Code)
			}
			for _, ln := range strings.Split(text, "\n") {
				m := fieldName.FindStringSubmatch(ln)
				if m == nil {
					continue
				}
				lt := countTokens(t, enc, ln+"\n")
				env -= lt
				lines++
				codes := at[m[1]]
				if len(codes) == 0 {
					codes = []issues.Code{"(merged)"}
				}
				for _, c := range codes {
					g := byCode[c]
					if g == nil {
						g = &agg{}
						byCode[c] = g
					}
					g.tokens += float64(lt) / float64(len(codes))
					g.n++
				}
			}
			if l == "en" {
				t.Logf("%-32s %4d tokens", a.call.Name, n)
			}
		}
		avg[l] = float64(total) / float64(len(answers))
		// The union calls (issue 37) came after the budget was set: it
		// holds on the others, and the union calls are reported apart.
		old, oldN, uni, uniN := 0, 0, 0, 0
		for _, a := range answers {
			n := countTokens(t, enc, a.text[l])
			if strings.HasPrefix(a.call.Name, "union.") {
				uni, uniN = uni+n, uniN+1
			} else {
				old, oldN = old+n, oldN+1
			}
		}
		avg[l+".old"] = float64(old) / float64(max(oldN, 1))
		t.Logf("%s: %d calls before the union calls, %.1f tokens per call; %d union calls, %.1f tokens per call",
			l, oldN, avg[l+".old"], uniN, float64(uni)/float64(max(uniN, 1)))
		t.Logf("%s: %d calls, %.1f tokens per call; %d field lines, %.1f tokens each; envelope and recovery %.1f per call",
			l, len(answers), avg[l], lines, float64(total-env)/float64(lines), float64(env)/float64(len(answers)))
		codes := make([]string, 0, len(byCode))
		for c := range byCode {
			codes = append(codes, string(c))
		}
		sort.Strings(codes)
		for _, c := range codes {
			g := byCode[issues.Code(c)]
			t.Logf("  %-18s %3d issues %5.1f tokens each", c, g.n, g.tokens/float64(g.n))
		}
	}
	if avg["en.old"] > multiBudget {
		t.Errorf("a call of the multi-problem corpus (without the union calls) costs %.1f o200k tokens on average in English, over the budget of %.1f", avg["en.old"], multiBudget)
	}
}

// TestMultiShownIsText: for every call of the corpus, and for a misspelt
// required key in an open schema ({"qurey":"x"}, which the text words as
// one line), the structured issues a result carries (Engine.Shown) are
// the text's lines, one issue per line at the line's field, in its order:
// what the text merges, cuts or counts, they do too.
func TestMultiShownIsText(t *testing.T) {
	e := selfheal.New()
	check := func(name string, fail error) {
		t.Helper()
		res, shown := e.Result(name, fail)
		var got, want []string
		for _, is := range shown {
			p := is.Path.String()
			if p == "" {
				p = "(root)"
			}
			got = append(got, p+" "+string(is.Code))
		}
		for i, f := range res.Fields {
			code := ""
			if i < len(shown) {
				code = string(shown[i].Code)
			}
			want = append(want, f.Name+" "+code)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the structured issues are not the text's lines:\n got %q\nwant %q", name, got, want)
		}
	}
	for _, a := range multiAnswers(t) {
		var fail error = a.issues
		check(a.call.Name, fail)
	}
	sch, err := jsonschemav6.Compile([]byte(`{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}`),
		jsonschemav6.WithTypos(true))
	if err != nil {
		t.Fatal(err)
	}
	list := sch.ValidateJSON([]byte(`{"qurey":"x"}`))
	if len(list) != 2 {
		t.Fatalf("{\"qurey\":\"x\"}: %d issues, want the near miss and the missing field: %v", len(list), list)
	}
	check("qurey", list)
	// The merged issue names the key sent and the one it stands for, in
	// memory of its own (the formatter's is cleared once it is done), and
	// is still a near miss (an open schema: the tool ignores the key).
	if _, shown := e.Result("qurey", list); len(shown) != 1 || shown[0].Path.String() != "query" ||
		!slices.Equal(shown[0].Keys, []string{"qurey"}) || !slices.Equal(shown[0].Allowed, []string{"query"}) || shown[0].Check != issues.CheckNearMiss {
		t.Errorf("{\"qurey\":\"x\"}: shown %+v, want one near miss at query with keys [qurey], allowed [query]", shown)
	}
}

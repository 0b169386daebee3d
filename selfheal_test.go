package selfheal_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/race"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
)

var seedIssue = issues.List{{Code: issues.InvalidFormat, Path: issues.Path{"id"}, Input: "not-an-email", Format: "email"}}

// TestSeedValidationError is the golden test of docs/ARCHITECTURE.md 2.2 through the
// facade, byte for byte.
func TestSeedValidationError(t *testing.T) {
	got := selfheal.New(selfheal.WithExamples(false)).Format("billing.get_invoice", seedIssue)
	want := `<validation_error action="billing.get_invoice">
  <field name="id">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestFormatWrapped(t *testing.T) {
	e := selfheal.New(selfheal.WithExamples(false))
	wrapped := fmt.Errorf("create user: %w", seedIssue)
	if got, want := e.Format("a", wrapped), e.Format("a", seedIssue); got != want {
		t.Errorf("a wrapped list renders differently:\n%s\n%s", got, want)
	}
}

func TestFormatOtherErrors(t *testing.T) {
	e := selfheal.New()
	if got := e.Format("a", nil); got != "" {
		t.Errorf("nil error: %q", got)
	}
	secret := errors.New("pq: password authentication failed for user \"admin\"")
	got := e.Format("a", secret)
	doc, err := envelope.Parse(got)
	if err != nil || doc.ToolError == nil {
		t.Fatalf("not a tool_error: %v\n%s", err, got)
	}
	if doc.ToolError.Code != envelope.InternalError || strings.Contains(got, "password") {
		t.Errorf("unsupported error leaked or got the wrong code:\n%s", got)
	}
	got = e.Format("a", fmt.Errorf("slow: %w", context.DeadlineExceeded))
	if doc, _ := envelope.Parse(got); doc.ToolError == nil || doc.ToolError.Code != envelope.Timeout {
		t.Errorf("deadline: %s", got)
	}
	if v, _ := e.Result("a", secret); len(v.Fields) != 0 || v.Action != "" {
		t.Errorf("Result of an unsupported error: %+v", v)
	}
	if e.Issues(secret) != nil || e.Issues(nil) != nil {
		t.Error("Issues of a non-validation error is not nil")
	}
}

func TestLocale(t *testing.T) {
	ja := selfheal.New(selfheal.WithLocale("ja-JP"), selfheal.WithExamples(false))
	got := ja.Format("billing.get_invoice", seedIssue)
	if !strings.Contains(got, "メールアドレスの形式が正しくありません。送信値: 'not-an-email'。期待: 有効なメールアドレス。") ||
		!strings.Contains(got, "<recovery>上のフィールドを修正して") {
		t.Errorf("ja:\n%s", got)
	}
	en := selfheal.New(selfheal.WithExamples(false))
	if en.Locale("fr-CH, ja;q=0.9").Format("x", seedIssue) != ja.Format("x", seedIssue) {
		t.Error("Locale(Accept-Language) did not pick Japanese")
	}
	if en.Locale("de") != en || en.Locale("") != en {
		t.Error("an unknown language did not return the same engine")
	}
	if en.Locale("ja") != en.Locale("ja-JP") {
		t.Error("Locale does not cache per catalog")
	}
}

func TestResult(t *testing.T) {
	e := selfheal.New(selfheal.WithExamples(false))
	v, _ := e.Result("billing.get_invoice", seedIssue)
	if v.String() != e.Format("billing.get_invoice", seedIssue) {
		t.Errorf("Result and Format differ:\n%s\n%s", v, e.Format("billing.get_invoice", seedIssue))
	}
}

func TestWithTemplates(t *testing.T) {
	e, err := selfheal.New(selfheal.WithExamples(false)).WithTemplates(map[string]string{
		// The seed's email line has its own key: the other formats' line
		// ("invalid_format") has no leading classification.
		"invalid_format.email": "Bad {format}. You sent: {sent}. Expected {format_expected}.",
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := e.Format("a", seedIssue); !strings.Contains(got, ">Bad email. You sent: 'not-an-email'. Expected a valid email address.<") {
		t.Errorf("override not used:\n%s", got)
	}
	if _, err := selfheal.New().WithTemplates(map[string]string{"invalid_format": "Bad {fromat}."}); err == nil {
		t.Error("a template with an unknown placeholder was accepted")
	}
}

func TestOptions(t *testing.T) {
	list := issues.List{
		{Code: issues.TooSmall, Path: issues.Path{"password"}, Input: "abc", Origin: "string", Minimum: "8", Inclusive: true},
		{Code: issues.InvalidType, Path: issues.Path{"note"}, Input: strings.Repeat("x", 30), Expected: issues.TypeNumber},
		{Code: issues.InvalidType, Path: issues.Path{"z"}, Input: 1.0, Expected: issues.TypeString},
	}
	got := selfheal.New(selfheal.WithRedact(), selfheal.WithMaxValueRunes(10), selfheal.WithMaxIssues(2)).Format("a", list)
	for _, want := range []string{"'abc'", "'xxxxxxxxxx…' (30 characters)", "…and 1 more issue not shown"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	got = selfheal.New(selfheal.WithMaxBytes(10)).Format("a", list)
	if strings.Count(got, "<field") != 1 {
		t.Errorf("byte budget not applied:\n%s", got)
	}
}

// TestConcurrent runs one engine from many goroutines; go test -race
// checks that nothing is shared unsafely.
func TestConcurrent(t *testing.T) {
	e := selfheal.New()
	want := e.Format("a", seedIssue)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for j := 0; j < 200; j++ {
				buf = e.Append(buf[:0], "a", seedIssue)
				if string(buf) != want {
					t.Errorf("concurrent render differs")
					return
				}
				_ = e.Locale("ja").Format("a", seedIssue)
			}
		}()
	}
	wg.Wait()
}

func TestAppendAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	e := selfheal.New()
	var err error = seedIssue
	buf := e.Append(nil, "a", err)
	if n := testing.AllocsPerRun(100, func() { buf = e.Append(buf[:0], "a", err) }); n != 0 {
		t.Errorf("Append allocates %v per call", n)
	}
}

func TestIssuesJSON(t *testing.T) {
	out, err := json.Marshal(selfheal.New().Issues(seedIssue))
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `[{"code":"invalid_format","path":["id"],"input":"not-an-email","format":"email"}]` {
		t.Errorf("JSON form: %s", out)
	}
}

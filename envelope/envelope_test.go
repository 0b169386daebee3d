package envelope_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/xmlenc"
)

func TestRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string // the retry_after text; "" means omitted
	}{
		{0, ""},
		{-time.Second, ""},
		{time.Nanosecond, "0.001 seconds"},
		{time.Millisecond, "0.001 seconds"},
		{time.Millisecond + 1, "0.002 seconds"},
		{37 * time.Millisecond, "0.037 seconds"},
		{99*time.Millisecond + 873*time.Microsecond, "0.1 seconds"}, // ten calls a second, as GCRA counts it
		{100 * time.Millisecond, "0.1 seconds"},
		{250 * time.Millisecond, "0.25 seconds"},
		{999*time.Millisecond + 1, "1 second"},
		{time.Second, "1 second"},
		{time.Second + 1, "1.001 seconds"},
		{1500 * time.Millisecond, "1.5 seconds"},
		{9999 * time.Millisecond, "9.999 seconds"},
		{9999*time.Millisecond + 1, "10 seconds"},
		{10 * time.Second, "10 seconds"},
		{10*time.Second + 1, "11 seconds"}, // whole seconds from 10 on
		{30 * time.Second, "30 seconds"},
		{59*time.Second + 999*time.Millisecond, "60 seconds"},
		{envelope.MaxRetryAfter, "86400 seconds"},
		{envelope.MaxRetryAfter + 1, "86400 seconds"},
		{1<<63 - 1, "86400 seconds"},
	} {
		got := envelope.ToolError{Message: "m", RetryAfter: tc.d}.String()
		_, after, ok := strings.Cut(got, "<retry_after>")
		text, _, _ := strings.Cut(after, "</retry_after>")
		if !ok && tc.want != "" || ok && text != tc.want {
			t.Errorf("RetryAfter(%v): got %q, want %q", tc.d, text, tc.want)
		}
	}
}

func TestSeverityAndCode(t *testing.T) {
	for _, tc := range []struct {
		sev     envelope.Severity
		written string
		isError bool
	}{
		{"", "error", true},
		{envelope.SeverityError, "error", true},
		{envelope.SeverityCritical, "critical", true},
		{envelope.SeverityWarning, "warning", false},
		{"Warning", "error", true}, // unknown: never turns a failure into a success
		{"fatal", "error", true},
	} {
		e := envelope.ToolError{Code: envelope.Conflict, Severity: tc.sev, Message: "m"}
		if !strings.HasPrefix(e.String(), `<tool_error code="CONFLICT" severity="`+tc.written+`">`) {
			t.Errorf("severity %q: %s", tc.sev, e.String())
		}
		if e.IsError() != tc.isError {
			t.Errorf("severity %q: IsError = %v", tc.sev, e.IsError())
		}
	}
	if got := (envelope.ToolError{Message: "m"}).String(); !strings.HasPrefix(got, `<tool_error code="INTERNAL_ERROR" severity="error">`) {
		t.Errorf("empty code: %s", got)
	}
}

func TestErrorString(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{envelope.Error(envelope.NotFound, "No invoice with that ID"), "NOT_FOUND: No invoice with that ID"},
		{envelope.ToolError{Code: "CUSTOM"}, "CUSTOM"},
		{&envelope.ToolError{Message: "m"}, "INTERNAL_ERROR: m"},
		{(*envelope.Builder)(nil), "INTERNAL_ERROR: The tool failed because of an internal error."},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
	}
}

func TestBuilder(t *testing.T) {
	b := envelope.Error(envelope.RateLimited, "Too many calls").
		Detail("b", "1").Detail("a", "2").Detail("b", "3"). // replaced in place
		Detail("a", "4").Detail("c", "3").Detail("z", "26").
		Actions("x").Actions("y", "z").
		Critical()
	want := envelope.ToolError{
		Code: envelope.RateLimited, Severity: envelope.SeverityCritical, Message: "Too many calls",
		Actions: []string{"x", "y", "z"},
		Details: []envelope.Detail{{"b", "3"}, {"a", "4"}, {"c", "3"}, {"z", "26"}},
	}
	if got := envelope.Wrap(b); !reflect.DeepEqual(got, want) {
		t.Errorf("ToolError() = %#v\nwant %#v", got, want)
	}
	if !envelope.Wrap(b).IsError() || envelope.Wrap(b.Warning()).IsError() {
		t.Error("IsError does not follow the severity")
	}

	// String is stable, and every setter shows in the next one.
	first := b.String()
	if b.String() != first {
		t.Error("String is not stable")
	}
	b.Suggest("Wait")
	if s := b.String(); s == first || !strings.Contains(s, "<recovery>Wait</recovery>") {
		t.Errorf("setter did not change String:\n%s", s)
	}
	if got := string(envelope.AppendBuilder(b, nil)); got != b.String() {
		t.Errorf("AppendXML differs from String")
	}
	b.RetryAfter(time.Minute)
	if got := string(envelope.AppendBuilder(b, nil)); !strings.Contains(got, "60 seconds") || got != envelope.Wrap(b).String() {
		t.Errorf("AppendXML is stale:\n%s", got)
	}

	// ToolError() is a copy: changing it leaves the builder alone.
	v := envelope.Wrap(b)
	v.Actions[0], v.Details[0].Value = "changed", "changed"
	if strings.Contains(b.String(), "changed") {
		t.Error("ToolError() shares its slices with the builder")
	}
}

func TestNilBuilder(t *testing.T) {
	var b *envelope.Builder
	b = b.Suggest("x").Actions("y").Detail("k", "v").Warning().Critical().RetryAfter(time.Second)
	if b != nil {
		t.Fatal("setters on a nil *Builder must return nil")
	}
	want := envelope.Wrap(nil)
	if b.String() != want.String() || string(envelope.AppendBuilder(b, nil)) != want.String() || envelope.Wrap(b).Code != envelope.InternalError || !envelope.Wrap(b).IsError() {
		t.Errorf("nil *Builder does not render as INTERNAL_ERROR: %s", b.String())
	}
}

// A finished Builder may be rendered from several goroutines (go test -race).
func TestBuilderConcurrentReads(t *testing.T) {
	b := seedBuilder()
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if b.String() != seedToolError || string(envelope.AppendBuilder(b, nil)) != seedToolError || b.Error() == "" {
				t.Error("concurrent read gave wrong output")
			}
		})
	}
	wg.Wait()
}

type wrapper struct{ err error }

func (w wrapper) Error() string { return "wrapped: " + w.err.Error() }
func (w wrapper) Unwrap() error { return w.err }

func TestWrap(t *testing.T) {
	b := seedBuilder()
	te := envelope.Wrap(b)
	warn := envelope.Error(envelope.Deprecated, "Use v2").Warning()
	for _, tc := range []struct {
		name string
		err  error
		want envelope.ToolError
	}{
		{"builder", b, te},
		{"builder wrapped", fmt.Errorf("handler: %w", b), te},
		{"builder in a custom wrapper", wrapper{b}, te},
		{"warning kept", fmt.Errorf("x: %w", warn), envelope.Wrap(warn)},
		{"ToolError value", fmt.Errorf("x: %w", te), te},
		{"*ToolError", fmt.Errorf("x: %w", &te), te},
		{"joined, first envelope wins", errors.Join(errors.New("plain"), warn, b), envelope.Wrap(warn)},
		{"deadline", context.DeadlineExceeded, envelope.Wrap(context.DeadlineExceeded)},
		{"deadline wrapped", fmt.Errorf("query: %w", context.DeadlineExceeded), envelope.Wrap(context.DeadlineExceeded)},
		{"plain", errors.New("dial tcp 10.0.0.7:5432: secret"), envelope.Wrap(nil)},
		{"nil *Builder", fmt.Errorf("x: %w", (*envelope.Builder)(nil)), envelope.Wrap(nil)},
		{"nil *ToolError", fmt.Errorf("x: %w", (*envelope.ToolError)(nil)), envelope.Wrap(nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := envelope.Wrap(tc.err)
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Wrap = %#v\nwant %#v", got, tc.want)
			}
		})
	}

	internal := envelope.Wrap(errors.New("pq: password=hunter2"))
	if internal.Code != envelope.InternalError || strings.Contains(internal.String(), "hunter2") ||
		!strings.Contains(internal.Recovery, "Do not retry the same call blindly") {
		t.Errorf("internal error envelope: %s", internal)
	}
	if to := envelope.Wrap(context.DeadlineExceeded); to.Code != envelope.Timeout || !to.IsError() {
		t.Errorf("deadline: %s", to)
	}
}

func TestFromPanic(t *testing.T) {
	recovered := func(f func()) (v any) {
		defer func() { v = recover() }()
		f()
		return nil
	}
	b := seedBuilder()
	for _, tc := range []struct {
		name  string
		panic func()
		want  envelope.Code
	}{
		{"string", func() { panic("boom: secret") }, envelope.InternalError},
		{"runtime error", func() { s, i := []string{"secret"}, 1; _ = s[i] }, envelope.InternalError},
		{"nil", func() { panic(nil) }, envelope.InternalError},
		{"builder", func() { panic(b) }, envelope.NotFound},
		{"deadline", func() { panic(context.DeadlineExceeded) }, envelope.Timeout},
	} {
		got := envelope.FromPanic(recovered(tc.panic))
		if got.Code != tc.want || strings.Contains(got.String(), "secret") {
			t.Errorf("%s: got %s", tc.name, got)
		}
	}
}

func TestValidationSections(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    envelope.ValidationError
		want string
	}{
		{"no fields", envelope.ValidationError{Action: "a"}, `<validation_error action="a">
  <recovery>` + envelope.DefaultRecovery + `</recovery>
</validation_error>`},
		{"empty contract omitted", envelope.ValidationError{Action: "a", Recovery: "r", Contract: &envelope.Contract{More: -1}}, `<validation_error action="a">
  <recovery>r</recovery>
</validation_error>`},
		{"server message between more and contract", envelope.ValidationError{Action: "a", More: "m", ServerMessage: "Error: ENOENT", Recovery: "r",
			Contract: &envelope.Contract{More: 1}}, `<validation_error action="a">
  <more>m</more>
  <server_message>Error: ENOENT</server_message>
  <contract_awareness omitted="1">
  </contract_awareness>
  <recovery>r</recovery>
</validation_error>`},
		{"only omitted count", envelope.ValidationError{Action: "a", Recovery: "r", Contract: &envelope.Contract{More: 7}}, `<validation_error action="a">
  <contract_awareness omitted="7">
  </contract_awareness>
  <recovery>r</recovery>
</validation_error>`},
	} {
		if got := tc.v.String(); got != tc.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tc.name, got, tc.want)
		}
	}
}

// The streaming writer the formatter uses (internal/xmlenc) and
// ValidationError.AppendXML share the recovery line an empty one means.
func TestDefaultRecoveryIsOne(t *testing.T) {
	if envelope.DefaultRecovery != xmlenc.DefaultRecovery {
		t.Errorf("envelope.DefaultRecovery %q != xmlenc.DefaultRecovery %q", envelope.DefaultRecovery, xmlenc.DefaultRecovery)
	}
}

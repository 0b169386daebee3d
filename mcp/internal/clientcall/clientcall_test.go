package clientcall

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

// fakeTime is a clock that moves only when the policy sleeps.
type fakeTime struct {
	now   time.Time
	waits []time.Duration
}

func (f *fakeTime) config(c Config) *Config {
	c.Now = func() time.Time { return f.now }
	c.Sleep = func(_ context.Context, d time.Duration) error {
		f.waits = append(f.waits, d)
		f.now = f.now.Add(d)
		return nil
	}
	c.Jitter = func(d time.Duration) time.Duration { return d / 2 }
	return &c
}

func errText(b *envelope.Builder) Outcome {
	return Outcome{IsError: true, Texts: []string{b.String()}}
}

// script answers the outcomes in order, then the last one forever.
func script(outs ...Outcome) (func(context.Context) (Outcome, error), *int) {
	n := new(int)
	return func(context.Context) (Outcome, error) {
		i := min(*n, len(outs)-1)
		*n++
		return outs[i], nil
	}, n
}

func identity(o Outcome) Outcome { return o }

var (
	ok          = Outcome{Texts: []string{`{"ok":true}`}}
	rateLimited = errText(envelope.Error(envelope.RateLimited, "slow down").RetryAfter(3 * time.Second))
	busy        = errText(envelope.Error(envelope.ServerBusy, "busy"))
	timeout     = errText(envelope.Error(envelope.Timeout, "too slow"))
	critical    = errText(envelope.Error(envelope.ServerBusy, "down").Critical())
	notFound    = errText(envelope.Error(envelope.NotFound, "gone"))
	validation  = Outcome{IsError: true, Texts: []string{envelope.ValidationError{Action: "t", Fields: []envelope.Field{{Name: "id", Text: "Bad."}}}.String()}}
	plain       = Outcome{IsError: true, Texts: []string{"something broke"}}
)

func TestRetryPolicy(t *testing.T) {
	idem := &Hints{Idempotent: true}
	for _, c := range []struct {
		name      string
		cfg       Config
		outs      []Outcome
		calls     int
		waits     []time.Duration
		wantCode  envelope.Code // "" : no CallError
		transport bool
	}{
		{"off by default", Config{Hints: idem}, []Outcome{rateLimited, ok}, 1, nil, envelope.RateLimited, false},
		{"rate limited waits retry_after", Config{Retries: 3, Hints: idem}, []Outcome{rateLimited, ok}, 2, []time.Duration{3 * time.Second}, "", false},
		{"read-only retried", Config{Retries: 3, Hints: &Hints{ReadOnly: true}}, []Outcome{rateLimited, ok}, 2, []time.Duration{3 * time.Second}, "", false},
		{"busy backs off", Config{Retries: 3, Hints: idem}, []Outcome{busy, timeout, busy, ok}, 4, []time.Duration{187500 * time.Microsecond, 375 * time.Millisecond, 750 * time.Millisecond}, "", false},
		{"retries bounded", Config{Retries: 2, Hints: idem}, []Outcome{busy}, 3, []time.Duration{187500 * time.Microsecond, 375 * time.Millisecond}, envelope.ServerBusy, false},
		{"unknown tool not retried", Config{Retries: 3}, []Outcome{rateLimited, ok}, 1, nil, envelope.RateLimited, false},
		{"destructive tool not retried", Config{Retries: 3, Hints: &Hints{}}, []Outcome{busy, ok}, 1, nil, envelope.ServerBusy, false},
		{"non-idempotent when asked", Config{Retries: 3, NonIdempotent: true}, []Outcome{rateLimited, ok}, 2, []time.Duration{3 * time.Second}, "", false},
		{"critical never", Config{Retries: 3, Hints: idem, NonIdempotent: true}, []Outcome{critical, ok}, 1, nil, envelope.ServerBusy, false},
		{"validation never", Config{Retries: 3, Hints: idem, NonIdempotent: true}, []Outcome{validation, ok}, 1, nil, envelope.ValidationErrorCode, false},
		{"not found never", Config{Retries: 3, Hints: idem}, []Outcome{notFound, ok}, 1, nil, envelope.NotFound, false},
		{"plain error passes", Config{Retries: 3, Hints: idem}, []Outcome{plain, ok}, 1, nil, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			ft := &fakeTime{now: time.Unix(1_700_000_000, 0)}
			call, n := script(c.outs...)
			res, err := Call(context.Background(), ft.config(c.cfg), call, identity)
			if *n != c.calls {
				t.Errorf("calls = %d, want %d", *n, c.calls)
			}
			if !equalDurations(ft.waits, c.waits) {
				t.Errorf("waits = %v, want %v", ft.waits, c.waits)
			}
			var ce *envelope.CallError
			switch {
			case c.wantCode == "" && err != nil:
				t.Errorf("err = %v, want nil", err)
			case c.wantCode != "" && (!errors.As(err, &ce) || ce.Code != c.wantCode):
				t.Errorf("err = %v, want a CallError %s", err, c.wantCode)
			}
			if want := c.outs[min(c.calls, len(c.outs))-1]; !equalOutcome(res, want) {
				t.Errorf("result = %#v, want %#v", res, want)
			}
		})
	}
}

func TestRetryBoundedByContext(t *testing.T) {
	ft := &fakeTime{now: time.Unix(1_700_000_000, 0)}
	ctx, cancel := context.WithDeadline(context.Background(), ft.now.Add(time.Second))
	defer cancel()
	call, n := script(busy)
	_, err := Call(ctx, ft.config(Config{Retries: 100, Hints: &Hints{Idempotent: true}}), call, identity)
	var ce *envelope.CallError
	if !errors.As(err, &ce) || ce.Code != envelope.ServerBusy {
		t.Fatalf("err = %v, want SERVER_BUSY", err)
	}
	// 187.5ms + 375ms fit in the second; 750ms more would not.
	if want := []time.Duration{187500 * time.Microsecond, 375 * time.Millisecond}; !equalDurations(ft.waits, want) || *n != 3 {
		t.Errorf("waits = %v after %d calls, want %v after 3", ft.waits, *n, want)
	}

	// A retry_after longer than the time left: the error at once.
	ft = &fakeTime{now: time.Unix(1_700_000_000, 0)}
	ctx, cancel = context.WithDeadline(context.Background(), ft.now.Add(2*time.Second))
	defer cancel()
	call, n = script(rateLimited, ok)
	if _, err := Call(ctx, ft.config(Config{Retries: 3, Hints: &Hints{ReadOnly: true}}), call, identity); !errors.As(err, &ce) || ce.Code != envelope.RateLimited || *n != 1 || len(ft.waits) != 0 {
		t.Errorf("err = %v after %d calls and waits %v, want RATE_LIMITED at once", err, *n, ft.waits)
	}
}

func TestRetryContextEndsDuringWait(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	call, n := script(busy, ok)
	// the real sleep: the context has ended, so it returns at once
	_, err := Call(ctx, &Config{Retries: 3, Hints: &Hints{ReadOnly: true}}, call, identity)
	var ce *envelope.CallError
	if !errors.As(err, &ce) || ce.Code != envelope.ServerBusy || *n != 1 {
		t.Errorf("err = %v after %d calls, want SERVER_BUSY after 1", err, *n)
	}
}

func TestTransportErrorNotRetried(t *testing.T) {
	boom := errors.New("connection closed")
	n := 0
	_, err := Call(context.Background(), &Config{Retries: 3, NonIdempotent: true}, func(context.Context) (Outcome, error) {
		n++
		return Outcome{}, boom
	}, identity)
	if err != boom || n != 1 {
		t.Errorf("err = %v after %d calls, want %v after 1", err, n, boom)
	}
}

// A result that asks for input (resultType input_required) is neither a
// success nor a failure: ErrInputRequired with the result, at once, never
// retried, never read as an envelope or a warning, whatever its content.
func TestInputRequired(t *testing.T) {
	for _, o := range []Outcome{
		{InputRequired: true},
		{InputRequired: true, IsError: true, Texts: rateLimited.Texts},
		{InputRequired: true, Texts: []string{envelope.Error(envelope.Deprecated, "x").Warning().String()}},
	} {
		ft := &fakeTime{now: time.Unix(1_700_000_000, 0)}
		call, n := script(o, ok)
		res, err := Call(context.Background(), ft.config(Config{Retries: 3, NonIdempotent: true}), call, identity)
		if err != ErrInputRequired || *n != 1 || len(ft.waits) != 0 || !equalOutcome(res, o) {
			t.Errorf("%+v: %+v, %v after %d calls and waits %v; want it back with ErrInputRequired after 1", o, res, err, *n, ft.waits)
		}
		if ce, w := CallError(o), Warning(o); ce != nil || w != nil {
			t.Errorf("%+v: CallError %v, Warning %v; want neither", o, ce, w)
		}
	}
}

func TestBackoffCapped(t *testing.T) {
	c := &Config{Jitter: func(d time.Duration) time.Duration { return d - 1 }}
	ce := &envelope.CallError{Code: envelope.ServerBusy}
	for attempt := range 100 {
		if w := c.wait(ce, attempt); w <= 0 || w >= MaxBackoff {
			t.Fatalf("wait(%d) = %v, want in (0, %v)", attempt, w, MaxBackoff)
		}
	}
	// the real jitter stays in [d/2, d)
	c = &Config{}
	for range 100 {
		if w := c.wait(ce, 0); w < BaseBackoff/2 || w >= BaseBackoff {
			t.Fatalf("wait(0) = %v, want in [%v, %v)", w, BaseBackoff/2, BaseBackoff)
		}
	}
}

func TestWarning(t *testing.T) {
	warn := envelope.Error(envelope.Deprecated, "page_size is deprecated").Warning()
	for _, c := range []struct {
		name string
		o    Outcome
		want bool
	}{
		{"warning block", Outcome{Texts: []string{`{"a":"<tool_error"}`, warn.String()}}, true},
		{"no envelope", ok, false},
		{"error result", Outcome{IsError: true, Texts: []string{warn.String()}}, false},
		{"error severity on a success", Outcome{Texts: []string{envelope.Error(envelope.NotFound, "x").String()}}, false},
	} {
		w := Warning(c.o)
		if (w != nil) != c.want {
			t.Errorf("%s: Warning = %#v, want found %v", c.name, w, c.want)
		}
		if w != nil && (w.Code != envelope.Deprecated || w.Message != "page_size is deprecated") {
			t.Errorf("%s: Warning = %#v", c.name, w)
		}
	}
	// a CallError's Text is every block; the envelope is found in any
	ce := CallError(Outcome{IsError: true, Texts: []string{"Tool failed:\n", notFound.Texts[0]}})
	if ce == nil || ce.Code != envelope.NotFound || ce.Text != "Tool failed:\n"+notFound.Texts[0] {
		t.Errorf("CallError = %#v", ce)
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func equalOutcome(a, b Outcome) bool {
	if a.InputRequired != b.InputRequired || a.IsError != b.IsError || len(a.Texts) != len(b.Texts) {
		return false
	}
	for i := range a.Texts {
		if a.Texts[i] != b.Texts[i] {
			return false
		}
	}
	return true
}

// The options set what they say, the last of a kind wins, and a nil option
// is no option.
func TestNewConfig(t *testing.T) {
	for _, c := range []struct {
		name string
		opts []Option
		want Config
	}{
		{"none", nil, Config{}},
		{"nil", []Option{nil}, Config{}},
		{"retry", []Option{WithRetry(2), nil, WithRetry(3)}, Config{Retries: 3}},
		{"non-idempotent", []Option{WithRetryNonIdempotent()}, Config{NonIdempotent: true}},
		{"hints", []Option{WithHints(Hints{ReadOnly: true}), WithHints(Hints{Idempotent: true})}, Config{Hints: &Hints{Idempotent: true}}},
	} {
		got := NewConfig(c.opts)
		if got.Retries != c.want.Retries || got.NonIdempotent != c.want.NonIdempotent ||
			(got.Hints == nil) != (c.want.Hints == nil) || got.Hints != nil && *got.Hints != *c.want.Hints {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
}

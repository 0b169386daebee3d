package golden

import (
	"testing"
)

// recorder captures a failure instead of failing the real test.
type recorder struct {
	testing.TB
	failed string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Fatalf(format string, a ...any) { r.failed = format }
func (r *recorder) Fatal(a ...any)                 { r.failed = "fatal" }

func TestCheck(t *testing.T) {
	if Update() {
		t.Skip("this test's golden file is its input, not its output")
	}
	r := &recorder{TB: t}
	Check(r, "sample.golden", []byte("one\ntwo\n"))
	if r.failed != "" {
		t.Errorf("the same bytes failed: %s", r.failed)
	}
	Check(r, "sample.golden", []byte("one\nTWO\n"))
	if r.failed == "" {
		t.Error("different bytes passed")
	}
	r.failed = ""
	Check(r, "missing.golden", []byte("x"))
	if r.failed == "" {
		t.Error("a missing file passed")
	}
}

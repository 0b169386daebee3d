package envelope_test

import (
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/race"

	"github.com/selfheal/selfheal/envelope"
)

// The hot paths render into a caller's buffer without allocating once the
// buffer has grown (docs/ARCHITECTURE.md 5).
func TestAppendDoesNotAllocate(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	te := envelope.Wrap(seedBuilder())
	b := seedBuilder()
	v := seedValidationError()
	sm := seedServerMessageError()
	buf := make([]byte, 0, 4096)
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"ToolError.AppendXML", func() { buf = envelope.AppendToolError(te, buf[:0]) }},
		{"Builder.AppendXML", func() { buf = envelope.AppendBuilder(b, buf[:0]) }},
		{"ValidationError.AppendXML", func() { buf = envelope.AppendValidation(v, buf[:0]) }},
		{"ValidationError.AppendXML with a server message", func() { buf = envelope.AppendValidation(sm, buf[:0]) }},
	} {
		if n := testing.AllocsPerRun(100, tc.f); n != 0 {
			t.Errorf("%s: %v allocs per run, want 0", tc.name, n)
		}
	}
}

func BenchmarkToolErrorAppend(b *testing.B) {
	te := envelope.Wrap(seedBuilder())
	buf := envelope.AppendToolError(te, nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = envelope.AppendToolError(te, buf[:0])
	}
}

// BenchmarkBuilderString measures the convenience path: a fresh builder
// chain rendered to a string, as a handler returning envelope.Error(...) does.
func BenchmarkBuilderString(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		_ = seedBuilder().String()
	}
}

func BenchmarkValidationAppend(b *testing.B) {
	v := seedValidationError()
	buf := envelope.AppendValidation(v, nil)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		buf = envelope.AppendValidation(v, buf[:0])
	}
}

func BenchmarkParse(b *testing.B) {
	b.SetBytes(int64(len(seedToolError)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := envelope.Parse(seedToolError); err != nil {
			b.Fatal(err)
		}
	}
}

package jsonschemav6_test

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/issues"
)

// usersCreate compiles the shipped users.create schema and decodes its bad
// (8 failures) and good arguments with exact numbers.
func usersCreate(tb testing.TB) (s *jsonschemav6.Schema, bad, good any) {
	tb.Helper()
	read := func(name string) []byte {
		data, err := os.ReadFile("../../examples/" + name)
		if err != nil {
			tb.Fatal(err)
		}
		return data
	}
	s, err := jsonschemav6.Compile(read("users.create.schema.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if bad, err = jsonvalue.Decode(read("users.create.bad.json")); err != nil {
		tb.Fatal(err)
	}
	if good, err = jsonvalue.Decode(read("users.create.good.json")); err != nil {
		tb.Fatal(err)
	}
	return s, bad, good
}

// BenchmarkIssues converts the users.create failures into a fresh list.
func BenchmarkIssues(b *testing.B) {
	s, bad, _ := usersCreate(b)
	err := s.Compiled().Validate(bad)
	b.ReportAllocs()
	for b.Loop() {
		_, _ = s.Issues(err, bad)
	}
}

// BenchmarkAppendIssues converts them into a reused list, as a server does.
func BenchmarkAppendIssues(b *testing.B) {
	s, bad, _ := usersCreate(b)
	err := s.Compiled().Validate(bad)
	list, _ := s.AppendIssues(nil, err, bad)
	b.ReportAllocs()
	for b.Loop() {
		list, _ = s.AppendIssues(list[:0], err, bad)
	}
}

// BenchmarkAppendValidate validates the bad and the good arguments with
// the library alone and through AppendValidate into a reused list: on the
// good ones the two must cost the same.
func BenchmarkAppendValidate(b *testing.B) {
	s, bad, good := usersCreate(b)
	for _, c := range []struct {
		name string
		v    any
	}{{"bad", bad}, {"good", good}} {
		b.Run(c.name+"/library", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = s.Compiled().Validate(c.v)
			}
		})
		b.Run(c.name+"/AppendValidate", func(b *testing.B) {
			var list issues.List
			b.ReportAllocs()
			for b.Loop() {
				list = s.AppendValidate(list[:0], c.v)
			}
		})
	}
}

// BenchmarkBudget times, on the users.create failures of 16 argument sets
// that fail it 8 ways each (bench/jsonschema_test.go's, cycled), the parts
// after the library's Validate: (f) the library's own Error(), what a
// server sends today, and (g) the conversion plus rendering into a reused
// list and buffer. docs/ARCHITECTURE.md 5 wants (g) at most 1 × (f).
func BenchmarkBudget(b *testing.B) {
	s, first, _ := usersCreate(b)
	bad := []any{first}
	roles := []string{"Admin", "Member", "Viewer", "ADMIN", "admn", "membr", "viewr", "Owner"}
	for i := 1; i < 16; i++ {
		v, err := jsonvalue.Decode(fmt.Appendf(nil, `{"name": %q, "emial": "user%d@example.com", "age": "%d", "role": %q,
			"tags": ["t%d", "t%d"], "address": {"postcode": "7-%03d"}}`,
			string(rune('A'+i)), i, 20+i, roles[i%len(roles)], i, i, i))
		if err != nil {
			b.Fatal(err)
		}
		bad = append(bad, v)
	}
	f := formatter.New(formatter.DefaultOptions())
	errs := make([]error, len(bad))
	for i, v := range bad {
		errs[i] = s.Compiled().Validate(v)
		// (g) must convert as the adapter does, or it times something else.
		got, _ := s.AppendIssues(nil, errs[i], v)
		if len(got) != 8 {
			b.Fatalf("bad variant %d fails %d ways, want 8", i, len(got))
		}
		if g, w := f.AppendValidation(nil, "users.create", got), f.AppendValidation(nil, "users.create", s.Validate(v)); !bytes.Equal(g, w) {
			b.Fatalf("bad variant %d: the conversion alone gives\n%s\nthe adapter\n%s", i, g, w)
		}
	}
	b.Run("f=Error", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_ = errs[i%len(errs)].Error()
			i++
		}
	})
	b.Run("g=selfheal", func(b *testing.B) {
		var list issues.List
		var buf []byte
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			list, _ = s.AppendIssues(list[:0], errs[i%len(errs)], bad[i%len(bad)])
			buf = f.AppendValidation(buf[:0], "users.create", list)
			i++
		}
	})
}

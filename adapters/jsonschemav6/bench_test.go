package jsonschemav6_test

import (
	"os"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
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

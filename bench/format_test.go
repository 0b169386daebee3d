package bench

import (
	"fmt"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/issues"
)

// realistic returns n issues cycling through the codes a tool call most
// often fails with.
func realistic(n int) issues.List {
	base := issues.List{
		{Code: issues.InvalidFormat, Path: issues.Path{"email"}, Input: "not-an-email", Format: "email"},
		{Code: issues.TooSmall, Path: issues.Path{"name"}, Input: "ab", Origin: issues.OriginString, Minimum: "3", Inclusive: true},
		{Code: issues.InvalidType, Path: issues.Path{"age"}, Input: "42", Expected: issues.TypeInteger},
		{Code: issues.InvalidValue, Path: issues.Path{"role"}, Input: "Admin", Values: []any{"admin", "member", "viewer"}},
		{Code: issues.InvalidType, Path: issues.Path{"team_id"}, Absent: true, Expected: issues.TypeString},
		{Code: issues.TooBig, Path: issues.Path{"tags"}, Input: []any{"a", "b", "c"}, Origin: issues.OriginArray, Maximum: "2", Inclusive: true},
		{Code: issues.UnrecognizedKeys, Keys: []string{"nmae"}, Allowed: []string{"name", "email", "age"}},
		{Code: issues.TooBig, Path: issues.Path{"limit"}, Input: 1000, Origin: issues.OriginInteger, Maximum: "100", Inclusive: true},
	}
	out := make(issues.List, n)
	for i := range out {
		out[i] = base[i%len(base)]
		out[i].Path = append(issues.Path{"items", i}, base[i%len(base)].Path...)
	}
	return out
}

// BenchmarkFormat renders 1, 4 and 20 issues into a reused buffer (the hot
// path: 0 allocs/op, cost linear in issues), beside the same list printed
// with fmt, the cheapest thing a server could send instead.
func BenchmarkFormat(b *testing.B) {
	e := selfheal.New(selfheal.WithMaxIssues(-1), selfheal.WithMaxBytes(-1))
	for _, n := range []int{1, 4, 20} {
		list := realistic(n)
		var err error = list
		b.Run(fmt.Sprintf("issues=%d/selfheal", n), func(b *testing.B) {
			buf := e.Append(nil, "users.create", err)
			b.ReportAllocs()
			for b.Loop() {
				buf = e.Append(buf[:0], "users.create", err)
			}
		})
		b.Run(fmt.Sprintf("issues=%d/fmt", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = fmt.Sprintf("%v", []issues.Issue(list))
			}
		})
	}
}

// BenchmarkFormatHugeValue shows that a 10 MiB value costs what a short one
// costs beyond the cut: only the shown prefix is read.
func BenchmarkFormatHugeValue(b *testing.B) {
	e := selfheal.New()
	for _, size := range []int{16, 10 << 20} {
		var err error = issues.List{{Code: issues.TooBig, Path: issues.Path{"bio"}, Input: strings.Repeat("a", size),
			Origin: issues.OriginString, Maximum: "280", Inclusive: true}}
		b.Run(fmt.Sprintf("bytes=%d", size), func(b *testing.B) {
			buf := e.Append(nil, "users.create", err)
			b.ReportAllocs()
			for b.Loop() {
				buf = e.Append(buf[:0], "users.create", err)
			}
		})
	}
}

// BenchmarkFormatLocale compares English and Japanese on the same issues.
func BenchmarkFormatLocale(b *testing.B) {
	var err error = realistic(4)
	for _, tag := range []string{"en", "ja"} {
		e := selfheal.New().Locale(tag)
		b.Run(tag, func(b *testing.B) {
			buf := e.Append(nil, "users.create", err)
			b.ReportAllocs()
			for b.Loop() {
				buf = e.Append(buf[:0], "users.create", err)
			}
		})
	}
}

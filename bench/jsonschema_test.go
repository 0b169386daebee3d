package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/issues"
)

// compileLib compiles schema with the library as jsonschemav6.Compile does
// by default (formats asserted, known by the same URL), for the library's
// Validate timed apart, and with jsonschemav6.Compile.
func compileLib(tb testing.TB, schema []byte) (*jsonschema.Schema, *jsonschemav6.Schema) {
	tb.Helper()
	const loc = "mem:///schema.json"
	doc, err := jsonvalue.Decode(schema)
	if err != nil {
		tb.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource(loc, doc); err != nil {
		tb.Fatal(err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		tb.Fatal(err)
	}
	ours, err := jsonschemav6.Compile(schema)
	if err != nil {
		tb.Fatal(err)
	}
	return sch, ours
}

func decodeJSON(tb testing.TB, data []byte) any {
	tb.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatal(err)
	}
	return v
}

func loadJSON(tb testing.TB, path string) any {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return decodeJSON(tb, data)
}

// badUsers returns the shipped bad users.create arguments and variants of
// them that fail the same 8 ways with other values: a misspelt key, a short
// name, a quoted age, a wrong-case role, repeated tags, a missing city and
// a bad postcode.
func badUsers(tb testing.TB) []any {
	out := []any{loadJSON(tb, "../examples/users.create.bad.json")}
	roles := []string{"Admin", "Member", "Viewer", "ADMIN", "admn", "membr", "viewr", "Owner"}
	for i := 1; i < variants; i++ {
		doc := fmt.Sprintf(`{"name": %q, "emial": "user%d@example.com", "age": "%d", "role": %q,
			"tags": ["t%d", "t%d"], "address": {"postcode": "7-%03d"}}`,
			string(rune('A'+i)), i, 20+i, roles[i%len(roles)], i, i, i)
		out = append(out, decodeJSON(tb, []byte(doc)))
	}
	return out
}

// BenchmarkJSONSchema compares, on the shipped users.create schema and 16
// bad argument sets that fail it 8 ways each (cycled, so that no cache can
// answer from the values sent), (a) jsonschema v6's Validate alone, (b)
// Validate plus the library's own Error() (what a server sends today), and
// (c) Validate plus this adapter and rendering, into a reused list and
// buffer as a server reuses them; and on the valid arguments (d) Validate
// alone and (e) through the adapter, which must cost nothing more. (f) is
// Error() alone; the adapter plus rendering alone, (g), which
// docs/ARCHITECTURE.md 5 wants at most 1 × (f), is timed beside (f) by
// adapters/jsonschemav6's BenchmarkBudget, which reaches the conversion.
func BenchmarkJSONSchema(b *testing.B) {
	schema, err := os.ReadFile("../examples/users.create.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	sch, err := jsonschemav6.Compile(schema)
	if err != nil {
		b.Fatal(err)
	}
	lib, _ := compileLib(b, schema)
	bad := badUsers(b)
	good := loadJSON(b, "../examples/users.create.good.json")
	for i, v := range bad {
		if n := len(sch.Validate(v)); n != 8 {
			b.Fatalf("bad variant %d fails %d ways, want 8", i, n)
		}
	}
	if lib.Validate(good) != nil {
		b.Fatal("the good example no longer passes")
	}
	f := formatter.New(formatter.DefaultOptions())

	b.Run("a=Validate", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_ = lib.Validate(bad[i%variants])
			i++
		}
	})
	b.Run("b=Validate+Error", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_ = lib.Validate(bad[i%variants]).Error()
			i++
		}
	})
	b.Run("c=Validate+selfheal", func(b *testing.B) {
		var list issues.List
		var buf []byte
		for _, v := range bad {
			list = sch.AppendValidate(list[:0], v)
			buf = f.AppendValidation(buf[:0], "users.create", list)
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			list = sch.AppendValidate(list[:0], bad[i%variants])
			buf = f.AppendValidation(buf[:0], "users.create", list)
			i++
		}
	})
	errs := make([]error, len(bad))
	for i, v := range bad {
		errs[i] = lib.Validate(v)
	}
	b.Run("f=Error", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_ = errs[i%variants].Error()
			i++
		}
	})
	b.Run("d=valid/Validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = lib.Validate(good)
		}
	})
	b.Run("e=valid/selfheal", func(b *testing.B) {
		var list issues.List
		b.ReportAllocs()
		for b.Loop() {
			if list = sch.AppendValidate(list[:0], good); len(list) != 0 {
				b.Fatal(list)
			}
		}
	})
}

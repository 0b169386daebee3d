package bench

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/formatter"
)

func loadJSON(tb testing.TB, path string) any {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		tb.Fatal(err)
	}
	return v
}

// BenchmarkJSONSchema compares, on the shipped users.create schema and its
// bad arguments (8 failures), (a) jsonschema v6's Validate alone, (b)
// Validate plus the library's own Error() (what a server sends today), and
// (c) Validate plus this adapter and rendering into a reused buffer; and on
// the valid arguments (d) Validate alone and (e) through the adapter, which
// must cost nothing more. DESIGN.md 5 wants (c) − (a) at most 0.1 × (b) − (a).
func BenchmarkJSONSchema(b *testing.B) {
	schema, err := os.ReadFile("../examples/users.create.schema.json")
	if err != nil {
		b.Fatal(err)
	}
	sch, err := jsonschemav6.Compile(schema)
	if err != nil {
		b.Fatal(err)
	}
	bad := loadJSON(b, "../examples/users.create.bad.json")
	good := loadJSON(b, "../examples/users.create.good.json")
	lib := sch.Compiled()
	if lib.Validate(bad) == nil || lib.Validate(good) != nil {
		b.Fatal("the example files no longer fail and pass as they should")
	}
	f := formatter.New(formatter.DefaultOptions())

	b.Run("a=Validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = lib.Validate(bad)
		}
	})
	b.Run("b=Validate+Error", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = lib.Validate(bad).Error()
		}
	})
	b.Run("c=Validate+selfheal", func(b *testing.B) {
		buf := f.AppendValidation(nil, "users.create", sch.Validate(bad))
		b.ReportAllocs()
		for b.Loop() {
			buf = f.AppendValidation(buf[:0], "users.create", sch.Validate(bad))
		}
	})
	b.Run("d=valid/Validate", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = lib.Validate(good)
		}
	})
	b.Run("e=valid/selfheal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if list := sch.Validate(good); list != nil {
				b.Fatal(list)
			}
		}
	})
}

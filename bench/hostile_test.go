package bench

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/go-playground/validator/v10"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/adapters/validatorv10"
)

// hostileSizes are the input sizes of the hostile benchmarks: docs/ARCHITECTURE.md 5
// wants the cost per key or item flat (within 2×) from the first to the
// last. Run the largest with a small -benchtime (3x).
var hostileSizes = []int{1_000, 10_000, 100_000}

// perUnit reports the time of one operation divided by n, so that linear
// growth reads as a flat figure across sizes.
func perUnit(b *testing.B, n int, unit string) {
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/"+unit)
}

// unknownKeysDoc is an object of n keys no schema declares, written in an
// order that is not sorted (the library reports them in map order anyway).
func unknownKeysDoc(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"name":"x"`)
	for i := range n {
		// A stride coprime with n scatters the keys.
		fmt.Fprintf(&sb, `,"k%07d":%d`, (i*7919)%n, i)
	}
	sb.WriteString("}")
	return []byte(sb.String())
}

// invalidItemsDoc is {"tags": [0, 1, …]}: n numbers where strings are
// expected.
func invalidItemsDoc(n int) []byte {
	var sb strings.Builder
	sb.WriteString(`{"tags":[`)
	for i := range n {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Itoa(i))
	}
	sb.WriteString("]}")
	return []byte(sb.String())
}

// BenchmarkHostileJSONSchema sends jsonschema v6 what a hostile or broken
// model may: n unknown keys (closed by additionalProperties, and by
// unevaluatedProperties, which the library reports key by key), and n
// invalid items. Side by side: (a) the library's Validate alone on the
// decoded value, the floor any answer costs; (b) ValidateJSON, decoding and
// converting; (c) ValidateJSON plus rendering through the facade, what a
// server does. ns/key and ns/item must stay flat from 1k to 100k.
func BenchmarkHostileJSONSchema(b *testing.B) {
	cases := []struct {
		name, unit, schema string
		doc                func(int) []byte
	}{
		{"additional_keys", "key",
			`{"type":"object","properties":{"name":{"type":"string"}},"additionalProperties":false}`,
			unknownKeysDoc},
		{"unevaluated_keys", "key",
			`{"type":"object","properties":{"name":{"type":"string"}},"unevaluatedProperties":false}`,
			unknownKeysDoc},
		{"invalid_items", "item",
			`{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"}}}}`,
			invalidItemsDoc},
	}
	e := selfheal.New()
	for _, c := range cases {
		sch, err := jsonschemav6.Compile([]byte(c.schema))
		if err != nil {
			b.Fatal(err)
		}
		lib, _ := compileLib(b, []byte(c.schema))
		for _, n := range hostileSizes {
			data := c.doc(n)
			v := decodeJSON(b, data)
			if lib.Validate(v) == nil {
				b.Fatalf("%s: the document passes", c.name)
			}
			prefix := c.name + "/n=" + strconv.Itoa(n) + "/"
			b.Run(prefix+"a=Validate", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = lib.Validate(v)
				}
				perUnit(b, n, c.unit)
			})
			b.Run(prefix+"b=ValidateJSON", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					_ = sch.ValidateJSON(data)
				}
				perUnit(b, n, c.unit)
			})
			b.Run(prefix+"c=ValidateJSON+Append", func(b *testing.B) {
				var buf []byte
				b.ReportAllocs()
				for b.Loop() {
					buf = e.Append(buf[:0], "hostile", sch.ValidateJSON(data))
				}
				perUnit(b, n, c.unit)
			})
		}
	}
}

// hostileItems is a struct whose dived slice a model filled with n bad
// items.
type hostileItems struct {
	Ages []int `json:"ages" validate:"dive,gte=18"`
}

// BenchmarkHostileValidator validates a struct holding n items that each
// fail dive,gte=18: (a) validate.Struct alone, (b) Struct plus the
// library's own Error(), what a server sends today, (c) Struct plus the
// facade's Append into a reused buffer.
func BenchmarkHostileValidator(b *testing.B) {
	validate := validator.New()
	e := selfheal.New(selfheal.WithAdapters(validatorv10.Errors))
	for _, n := range hostileSizes {
		v := hostileItems{Ages: make([]int, n)}
		for i := range v.Ages {
			v.Ages[i] = i % 18
		}
		if errs, ok := validate.Struct(v).(validator.ValidationErrors); !ok || len(errs) != n {
			b.Fatalf("n=%d: %d failures", n, len(errs))
		}
		prefix := "invalid_items/n=" + strconv.Itoa(n) + "/"
		b.Run(prefix+"a=Struct", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = validate.Struct(v)
			}
			perUnit(b, n, "item")
		})
		b.Run(prefix+"b=Struct+Error", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = validate.Struct(v).Error()
			}
			perUnit(b, n, "item")
		})
		b.Run(prefix+"c=Struct+Append", func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				buf = e.Append(buf[:0], "hostile", validate.Struct(v))
			}
			perUnit(b, n, "item")
		})
	}
}

// hostileTags receives {"tags": [0, 1, …]}: numbers where strings go.
type hostileTags struct {
	Tags []string `json:"tags"`
}

// BenchmarkHostileDecode decodes n invalid items: (a) encoding/json's
// Unmarshal, which reports the first only, (b) jsondecode.Decode, which
// finds them all, (c) Decode plus the facade's Append.
func BenchmarkHostileDecode(b *testing.B) {
	e := selfheal.New()
	for _, n := range hostileSizes {
		data := invalidItemsDoc(n)
		var probe hostileTags
		if list, ok := jsondecode.Issues(jsondecode.Decode(data, &probe)); !ok || len(list) == 0 {
			b.Fatalf("n=%d: the document decodes", n)
		}
		prefix := "invalid_items/n=" + strconv.Itoa(n) + "/"
		b.Run(prefix+"a=json.Unmarshal", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v hostileTags
				_ = json.Unmarshal(data, &v)
			}
			perUnit(b, n, "item")
		})
		b.Run(prefix+"b=Decode", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var v hostileTags
				_ = jsondecode.Decode(data, &v)
			}
			perUnit(b, n, "item")
		})
		b.Run(prefix+"c=Decode+Append", func(b *testing.B) {
			var buf []byte
			b.ReportAllocs()
			for b.Loop() {
				var v hostileTags
				buf = e.Append(buf[:0], "hostile", jsondecode.Decode(data, &v))
			}
			perUnit(b, n, "item")
		})
	}
}

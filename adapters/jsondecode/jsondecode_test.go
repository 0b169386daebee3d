package jsondecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/selfheal/selfheal/internal/testkit/race"

	"github.com/selfheal/selfheal/issues"
)

type P = issues.Path

// Base is embedded: its fields are members of the outer object.
type Base struct {
	ID      int       `json:"id"`
	Created time.Time `json:"created,omitempty"`
}

type Item struct {
	SKU string `json:"sku"`
	Qty int8   `json:"qty"`
}

// Color accepts three names through UnmarshalText.
type Color string

func (c *Color) UnmarshalText(b []byte) error {
	switch string(b) {
	case "red", "green", "blue":
		*c = Color(b)
		return nil
	}
	return fmt.Errorf("unknown color %q", b)
}

// Range validates itself and reports issues relative to its own value.
type Range struct{ Lo, Hi int }

func (r *Range) UnmarshalJSON(b []byte) error {
	var raw struct{ Lo, Hi int }
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if raw.Lo > raw.Hi {
		return issues.List{{Code: issues.TooBig, Path: P{"Lo"}, Input: raw.Lo, Origin: issues.OriginInteger,
			Maximum: issues.Number(fmt.Sprint(raw.Hi)), Inclusive: true}}
	}
	*r = Range(raw)
	return nil
}

type Order struct {
	Base
	Name   string          `json:"name"`
	Note   *string         `json:"note,omitempty"`
	Items  []Item          `json:"items"`
	Labels map[string]Item `json:"labels,omitempty"`
	Secret string          `json:"-"`
	Count  uint16          `json:"count,string"`
	Price  float32         `json:"price"`
	Active bool            `json:"active"`
	Tags   [2]string       `json:"tags"`
	Extra  any             `json:"extra"`
	Raw    json.RawMessage `json:"raw"`
	Amount json.Number     `json:"amount"`
	Color  Color           `json:"color"`
	Blob   []byte          `json:"blob"`
	ByID   map[int8]string `json:"by_id"`
	Ptr    **int           `json:"ptr"`
	Span   *Range          `json:"span"`
	hidden int             //lint:ignore U1000 unexported fields are never members
}

var orderKeys = []string{"id", "created", "name", "note", "items", "labels", "count", "price", "active", "tags",
	"extra", "raw", "amount", "color", "blob", "by_id", "ptr", "span"}

func num(s string) json.Number { return json.Number(s) }

func TestDecode(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want issues.List
	}{
		{"valid", `{"id":7,"created":"2026-01-31T09:30:00Z","name":"a","note":"n","items":[{"sku":"x","qty":-128}],
			"labels":{"a.b":{"sku":"y","qty":127}},"count":"65535","price":1.5e38,"active":true,"tags":["a","b","ignored",4],
			"extra":{"any":[1,"x",null]},"raw":[1, 2],"amount":"12.50","color":"red","blob":"aGk=","by_id":{"-128":"m","+5":"p"},
			"ptr":3,"span":{"Lo":1,"Hi":2}}`, nil},
		{"nulls are accepted everywhere", `{"id":null,"name":null,"note":null,"items":[null],"labels":null,"count":null,
			"created":null,"ptr":null,"tags":null,"color":null,"blob":null,"amount":null,"span":null}`, nil},
		{"null root", `null`, nil},
		{"keys match case-insensitively, as in encoding/json", `{"NAME":"a","Items":[{"SKU":"x"}]}`, nil},
		{"nested array element", `{"items":[{"qty":1},{"qty":2},{"qty":"3"}]}`, issues.List{
			{Code: issues.InvalidType, Path: P{"items", 2, "qty"}, Input: "3", Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"map value with a dotted key", `{"labels":{"a.b":{"sku":5}}}`, issues.List{
			{Code: issues.InvalidType, Path: P{"labels", "a.b", "sku"}, Input: num("5"), Expected: issues.TypeString, Source: "json:type"},
		}},
		{"embedded struct fields are members of the outer object", `{"id":"7"}`, issues.List{
			{Code: issues.InvalidType, Path: P{"id"}, Input: "7", Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"json:\"-\" and unexported fields are not members", `{"Secret":"s","-":1,"hidden":2}`, issues.List{
			{Code: issues.UnrecognizedKeys, Input: map[string]any{"Secret": "s", "-": num("1"), "hidden": num("2")}, Keys: []string{"-", "Secret", "hidden"},
				Allowed: orderKeys, Source: "json:unknown_field"},
		}},
		{"pointers", `{"note":5,"ptr":"x"}`, issues.List{
			{Code: issues.InvalidType, Path: P{"note"}, Input: num("5"), Expected: issues.TypeString, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"ptr"}, Input: "x", Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"every kind mismatched", `{"name":true,"active":"true","price":"1.5","items":{"sku":"x"},"labels":[],
			"tags":"a","amount":false,"id":[1],"extra":1,"raw":"r"}`, issues.List{
			{Code: issues.InvalidType, Path: P{"name"}, Input: true, Expected: issues.TypeString, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"active"}, Input: "true", Expected: issues.TypeBoolean, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"price"}, Input: "1.5", Expected: issues.TypeNumber, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"items"}, Input: map[string]any{"sku": "x"}, Expected: issues.TypeArray, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"labels"}, Input: []any{}, Expected: issues.TypeObject, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"tags"}, Input: "a", Expected: issues.TypeArray, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"amount"}, Input: false, Expected: issues.TypeNumber, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"id"}, Input: []any{num("1")}, Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"json.Number takes a numeric string only", `{"amount":"12,5"}`, issues.List{
			{Code: issues.InvalidType, Path: P{"amount"}, Input: "12,5", Expected: issues.TypeNumber, Source: "json:type"},
		}},
		{"decimal and exponent for an integer", `{"id":1.5,"items":[{"qty":1e2},{"qty":1.0}]}`, issues.List{
			{Code: issues.InvalidType, Path: P{"id"}, Input: num("1.5"), Expected: issues.TypeInteger, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"items", 0, "qty"}, Input: num("1e2"), Expected: issues.TypeInteger, Source: "json:type"},
			{Code: issues.InvalidType, Path: P{"items", 1, "qty"}, Input: num("1.0"), Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"overflow", `{"items":[{"qty":128},{"qty":-129}],"id":9223372036854775808,"price":-3.5e38,"blob":[1,256]}`, issues.List{
			{Code: issues.TooBig, Path: P{"items", 0, "qty"}, Input: num("128"), Origin: "integer", Maximum: "127", Inclusive: true, Source: "json:range"},
			{Code: issues.TooSmall, Path: P{"items", 1, "qty"}, Input: num("-129"), Origin: "integer", Minimum: "-128", Inclusive: true, Source: "json:range"},
			{Code: issues.TooBig, Path: P{"id"}, Input: num("9223372036854775808"), Origin: "integer", Maximum: "9223372036854775807", Inclusive: true, Source: "json:range"},
			{Code: issues.TooSmall, Path: P{"price"}, Input: num("-3.5e38"), Origin: "number", Minimum: "-3.4028235e+38", Inclusive: true, Source: "json:range"},
			{Code: issues.TooBig, Path: P{"blob", 1}, Input: num("256"), Origin: "integer", Maximum: "255", Inclusive: true, Source: "json:range"},
		}},
		{"unknown keys at several levels, in document order", `{"nmae":"a","items":[{"qty":"x","skuu":1,"skuu":2,"a":0}],
			"labels":{"k":{"zz":1}},"name":5,"zzz":1}`, issues.List{
			{Code: issues.UnrecognizedKeys, Input: map[string]any{"nmae": "a", "items": []any{map[string]any{"qty": "x", "skuu": num("2"), "a": num("0")}},
				"labels": map[string]any{"k": map[string]any{"zz": num("1")}}, "name": num("5"), "zzz": num("1")},
				Keys: []string{"nmae", "zzz"}, Allowed: orderKeys, Source: "json:unknown_field"},
			{Code: issues.InvalidType, Path: P{"items", 0, "qty"}, Input: "x", Expected: issues.TypeInteger, Source: "json:type"},
			{Code: issues.UnrecognizedKeys, Path: P{"items", 0}, Input: map[string]any{"qty": "x", "skuu": num("2"), "a": num("0")},
				Keys: []string{"a", "skuu"}, Allowed: []string{"sku", "qty"}, Source: "json:unknown_field"},
			{Code: issues.UnrecognizedKeys, Path: P{"labels", "k"}, Input: map[string]any{"zz": num("1")},
				Keys: []string{"zz"}, Allowed: []string{"sku", "qty"}, Source: "json:unknown_field"},
			{Code: issues.InvalidType, Path: P{"name"}, Input: num("5"), Expected: issues.TypeString, Source: "json:type"},
		}},
		{"escaped key is matched unescaped", `{"n\u0061me":1}`, issues.List{
			{Code: issues.InvalidType, Path: P{"name"}, Input: num("1"), Expected: issues.TypeString, Source: "json:type"},
		}},
		{"truncated", `{"name": "ab`, issues.List{
			{Code: issues.Custom, Input: `{"name": "ab`, Message: "Incomplete JSON: the input ends at byte offset 12", Format: "json", Source: "json:syntax"},
		}},
		{"bad character", `{"name": "a", "id": x, "items": []}`, issues.List{
			{Code: issues.Custom, Input: `a", "id": x, "items"`, Message: "Malformed JSON at byte offset 20", Format: "json", Source: "json:syntax"},
		}},
		{"excerpt cut on rune boundaries", `{"name": "ééééééé"  x, "id": 1, "items": []}`, issues.List{
			{Code: issues.Custom, Input: `ééé"  x, "id": 1`, Message: "Malformed JSON at byte offset 27", Format: "json", Source: "json:syntax"},
		}},
		{"control character in a string", "{\"name\": \"a\tb\"}", issues.List{
			{Code: issues.Custom, Input: "{\"name\": \"a\tb\"}", Message: "Malformed JSON at byte offset 11", Format: "json", Source: "json:syntax"},
		}},
		{"trailing value", `{"name":"a"} {"name":"b"}`, issues.List{
			{Code: issues.Custom, Input: `ame":"a"} {"name":"b`, Message: "Unexpected data after the JSON value at byte offset 13", Format: "json", Source: "json:trailing"},
		}},
		{"trailing garbage after an invalid value", `{"name":1}}`, issues.List{
			{Code: issues.InvalidType, Path: P{"name"}, Input: num("1"), Expected: issues.TypeString, Source: "json:type"},
			{Code: issues.Custom, Input: `{"name":1}}`, Message: "Unexpected data after the JSON value at byte offset 10", Format: "json", Source: "json:trailing"},
		}},
		{"non-object root", `"hello"`, issues.List{
			{Code: issues.InvalidType, Input: "hello", Expected: issues.TypeObject, Source: "json:type"},
		}},
		{"empty input", ``, issues.List{
			{Code: issues.InvalidType, Absent: true, Expected: issues.TypeObject, Source: "json:syntax"},
		}},
		{"blank input", " \n\t", issues.List{
			{Code: issues.InvalidType, Absent: true, Expected: issues.TypeObject, Source: "json:syntax"},
		}},
		{"TextUnmarshaler", `{"color":"purple"}`, issues.List{
			{Code: issues.Custom, Path: P{"color"}, Input: "purple", Message: `unknown color "purple"`, Source: "json:unmarshaler"},
		}},
		{"TextUnmarshaler takes strings only", `{"color":1}`, issues.List{
			{Code: issues.InvalidType, Path: P{"color"}, Input: num("1"), Expected: issues.TypeString, Source: "json:type"},
		}},
		{"time.Time", `{"created":"yesterday","items":[]}`, issues.List{
			{Code: issues.InvalidFormat, Path: P{"created"}, Input: "yesterday", Format: "date-time", Source: "json:format"},
		}},
		{"time.Time takes strings only", `{"created":1700000000}`, issues.List{
			{Code: issues.InvalidType, Path: P{"created"}, Input: num("1700000000"), Expected: issues.TypeString, Source: "json:type"},
		}},
		{"base64", `{"blob":"not base64!"}`, issues.List{
			{Code: issues.InvalidFormat, Path: P{"blob"}, Input: "not base64!", Format: "base64", Source: "json:format"},
		}},
		{"integer map keys", `{"by_id":{"1":"a","abc":"b","300":"c","-129":"d"}}`, issues.List{
			{Code: issues.InvalidKey, Path: P{"by_id"}, Input: "abc", Key: "abc", Origin: "map", Source: "json:key",
				Issues: []issues.Issue{{Code: issues.InvalidFormat, Input: "abc", Format: "integer", Source: "json:format"}}},
			{Code: issues.InvalidKey, Path: P{"by_id"}, Input: "300", Key: "300", Origin: "map", Source: "json:key",
				Issues: []issues.Issue{{Code: issues.TooBig, Input: "300", Origin: "integer", Maximum: "127", Inclusive: true, Source: "json:range"}}},
			{Code: issues.InvalidKey, Path: P{"by_id"}, Input: "-129", Key: "-129", Origin: "map", Source: "json:key",
				Issues: []issues.Issue{{Code: issues.TooSmall, Input: "-129", Origin: "integer", Minimum: "-128", Inclusive: true, Source: "json:range"}}},
		}},
		{",string option", `{"count":5}`, issues.List{
			{Code: issues.InvalidType, Path: P{"count"}, Input: num("5"), Expected: issues.TypeString, Source: "json:type"},
		}},
		{",string content", `{"count":"five"}`, issues.List{
			{Code: issues.InvalidFormat, Path: P{"count"}, Input: "five", Format: "integer", Source: "json:format"},
		}},
		{",string range", `{"count":"70000"}`, issues.List{
			{Code: issues.TooBig, Path: P{"count"}, Input: "70000", Origin: "integer", Maximum: "65535", Inclusive: true, Source: "json:range"},
		}},
		{"unmarshaler issues are kept under its path", `{"span":{"Lo":5,"Hi":1}}`, issues.List{
			{Code: issues.TooBig, Path: P{"span", "Lo"}, Input: 5, Origin: "integer", Maximum: "1", Inclusive: true},
		}},
		{"unmarshaler's own decoding error", `{"span":{"Lo":"5"}}`, issues.List{
			{Code: issues.InvalidType, Path: P{"span", "Lo"}, Input: issues.Unknown{Type: "string"}, Expected: issues.TypeInteger, Source: "json:type"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Order
			err := Decode([]byte(tt.in), &got)
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Decode: %v", err)
				}
				var want Order
				if err := json.Unmarshal([]byte(tt.in), &want); err != nil {
					t.Fatalf("json.Unmarshal: %v", err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("decoded %+v, encoding/json gives %+v", got, want)
				}
				return
			}
			var list issues.List
			if !errors.As(err, &list) {
				t.Fatalf("Decode: %v (%T), want issues", err, err)
			}
			if !reflect.DeepEqual(list, tt.want) {
				g, _ := json.MarshalIndent(list, "", " ")
				w, _ := json.MarshalIndent(tt.want, "", " ")
				t.Errorf("got\n%s\nwant\n%s", g, w)
			}
			if !reflect.DeepEqual(got, Order{}) {
				t.Errorf("v was modified: %+v", got)
			}
		})
	}
}

// TestDecodeAgreesWithEncodingJSON checks that Decode fails exactly when a
// strict encoding/json decode does.
func TestDecodeAgreesWithEncodingJSON(t *testing.T) {
	for _, in := range []string{
		`{}`, `{"id":1}`, `{"ID":1}`, `{"iD":"1"}`, `{"items":[{"qty":127}]}`, `{"items":[{"qty":128}]}`,
		`{"count":"12"}`, `{"count":"-1"}`, `{"count":"1.0"}`, `{"count":" 1"}`, `{"count":"null"}`, `{"count":""}`,
		`{"by_id":{"+1":"a"}}`, `{"by_id":{"1.0":"a"}}`, `{"tags":[1]}`, `{"tags":["a","b",1]}`,
		`{"price":1e39}`, `{"price":1e-50}`, `{"blob":[1,2]}`, `{"blob":"aGk"}`, `{"amount":"-0.0e+1"}`, `{"amount":"01"}`,
		`{"created":"2026-01-31T09:30:00+01:00"}`, `{"created":"2026-01-31"}`, `{"extra":[[[]]]}`,
		`{"name":"\ud800"}`, "{\"name\":\"\xff\"}", `{"name":"a"}`, `[]`, `1`, `{"span":{"Lo":1,"Hi":1}}`,
		`{"items":[{"s\u212au":"x"}]}`, "{\"items\":[{\"s\xffu\":\"x\"}]}", `{"nAmE":"x","name":"y"}`,
	} {
		var a, b Order
		got := Decode([]byte(in), &a)
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		want := dec.Decode(&b)
		if (got == nil) != (want == nil) {
			t.Errorf("%s: Decode %v, encoding/json %v", in, got, want)
		}
		if got == nil && !reflect.DeepEqual(a, b) {
			t.Errorf("%s: decoded %+v, want %+v", in, a, b)
		}
	}
}

type Node struct {
	Name     string `json:"name"`
	Children []Node `json:"children"`
}

func TestRecursiveType(t *testing.T) {
	err := Decode([]byte(`{"name":"a","children":[{"name":"b","children":[{"name":3}]}]}`), new(Node))
	want := issues.List{{Code: issues.InvalidType, Path: P{"children", 0, "children", 0, "name"}, Input: num("3"), Expected: issues.TypeString, Source: "json:type"}}
	if !reflect.DeepEqual(err, want) {
		t.Errorf("got %#v", err)
	}
}

// Embedding rules: the shallower field wins, and two untagged ones at the
// same depth hide each other; "b" and "B" are different names, matched
// exactly before any case-insensitive match.
type (
	Inner1 struct {
		A int
		B int `json:"b"`
		C int
	}
	Inner2 struct {
		A int
		B int
		C int
	}
	Outer struct {
		Inner1
		*Inner2
		C string
	}
)

func TestEmbeddingRules(t *testing.T) {
	err := Decode([]byte(`{"A":1,"b":1,"B":1,"C":1}`), new(Outer))
	want := issues.List{
		{Code: issues.UnrecognizedKeys, Input: map[string]any{"A": num("1"), "b": num("1"), "B": num("1"), "C": num("1")},
			Keys: []string{"A"}, Allowed: []string{"b", "B", "C"}, Source: "json:unknown_field"},
		{Code: issues.InvalidType, Path: P{"C"}, Input: num("1"), Expected: issues.TypeString, Source: "json:type"},
	}
	if !reflect.DeepEqual(err, want) {
		g, _ := json.Marshal(err)
		t.Errorf("got %s", g)
	}
	for _, in := range []string{`{"b":1,"B":2,"C":"c"}`, `{"a":1}`, `{"c":"x"}`, `{"c":1}`} {
		var x, y Outer
		got := Decode([]byte(in), &x)
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		if want := dec.Decode(&y); (got == nil) != (want == nil) || !reflect.DeepEqual(x, y) {
			t.Errorf("%s: Decode %v %+v, encoding/json %v %+v", in, got, x, want, y)
		}
	}
}

func TestDecodeTargets(t *testing.T) {
	var m map[string]int
	if err := Decode([]byte(`{"a":1,"b":"2"}`), &m); !reflect.DeepEqual(err, issues.List{
		{Code: issues.InvalidType, Path: P{"b"}, Input: "2", Expected: issues.TypeInteger, Source: "json:type"},
	}) {
		t.Errorf("map: %v", err)
	}
	var s []bool
	if err := Decode([]byte(`[true,false,1]`), &s); !reflect.DeepEqual(err, issues.List{
		{Code: issues.InvalidType, Path: P{2}, Input: num("1"), Expected: issues.TypeBoolean, Source: "json:type"},
	}) {
		t.Errorf("slice: %v", err)
	}
	var a any
	if err := Decode([]byte(`{"x":[1,2]}`), &a); err != nil || !reflect.DeepEqual(a, map[string]any{"x": []any{1.0, 2.0}}) {
		t.Errorf("any: %v %#v", err, a)
	}
	if err := Decode([]byte(``), &a); !reflect.DeepEqual(err, issues.List{{Code: issues.InvalidType, Absent: true, Source: "json:syntax"}}) {
		t.Errorf("empty into any: %v", err)
	}
	var ie *json.InvalidUnmarshalError
	if err := Decode([]byte(`{}`), Order{}); !errors.As(err, &ie) {
		t.Errorf("non-pointer: %v", err)
	}
	if err := Decode([]byte(`{}`), (*Order)(nil)); !errors.As(err, &ie) {
		t.Errorf("nil pointer: %v", err)
	}
	// A map key type encoding/json refuses is left to it.
	var bad map[bool]int
	if err := Decode([]byte(`{"true":1}`), &bad); err == nil {
		t.Error("map[bool]int: no error")
	}
}

type keyed struct {
	U map[uint8]int `json:"u"`
	C map[Color]int `json:"c"`
	Q *bool         `json:"q,string"`
	S string        `json:"s,string"`
	F float64       `json:"f,string"`
}

func TestMapKeysAndStringOption(t *testing.T) {
	err := Decode([]byte(`{"u":{"1":1,"256":2,"-1":3,"+1":4},"c":{"red":1,"pink":2},"q":"yes","s":"plain","f":"1e999"}`), new(keyed))
	want := issues.List{
		{Code: issues.InvalidKey, Path: P{"u"}, Input: "256", Key: "256", Origin: "map", Source: "json:key",
			Issues: []issues.Issue{{Code: issues.TooBig, Input: "256", Origin: "integer", Maximum: "255", Inclusive: true, Source: "json:range"}}},
		{Code: issues.InvalidKey, Path: P{"u"}, Input: "-1", Key: "-1", Origin: "map", Source: "json:key",
			Issues: []issues.Issue{{Code: issues.TooSmall, Input: "-1", Origin: "integer", Minimum: "0", Inclusive: true, Source: "json:range"}}},
		{Code: issues.InvalidKey, Path: P{"u"}, Input: "+1", Key: "+1", Origin: "map", Source: "json:key",
			Issues: []issues.Issue{{Code: issues.InvalidFormat, Input: "+1", Format: "integer", Source: "json:format"}}},
		{Code: issues.InvalidKey, Path: P{"c"}, Input: "pink", Key: "pink", Origin: "map", Source: "json:key",
			Issues: []issues.Issue{{Code: issues.Custom, Input: "pink", Message: `unknown color "pink"`, Source: "json:unmarshaler"}}},
		{Code: issues.InvalidFormat, Path: P{"q"}, Input: "yes", Format: "boolean", Source: "json:format"},
		{Code: issues.InvalidFormat, Path: P{"s"}, Input: "plain", Format: "json_string", Source: "json:format"},
		{Code: issues.TooBig, Path: P{"f"}, Input: "1e999", Origin: "number", Maximum: "1.7976931348623157e+308", Inclusive: true, Source: "json:range"},
	}
	if !reflect.DeepEqual(err, want) {
		g, _ := json.MarshalIndent(err, "", " ")
		t.Errorf("got %s", g)
	}
	var k keyed
	if err := Decode([]byte(`{"u":{"255":1},"c":{"blue":2},"q":"true","s":"\"quoted\"","f":"-2.5"}`), &k); err != nil ||
		k.U[255] != 1 || k.C["blue"] != 2 || !*k.Q || k.S != "quoted" || k.F != -2.5 {
		t.Errorf("valid: %v %+v", err, k)
	}
}

func TestIssues(t *testing.T) {
	unmarshal := func(in string, v any) error { return json.Unmarshal([]byte(in), v) }
	strict := func(in string, v any) error {
		dec := json.NewDecoder(strings.NewReader(in))
		dec.DisallowUnknownFields()
		return dec.Decode(v)
	}
	// Field paths differ between encoding/json's two implementations.
	itemsQty, baseID, byID := P{"items", "qty"}, P{"Base", "id"}, P{"by_id"}
	if fieldHasIndexes {
		itemsQty, baseID = P{"items", 1, "qty"}, P{"id"}
	}
	tests := []struct {
		name string
		err  error
		want issues.List
	}{
		{"type, value unknown", unmarshal(`{"items":[{},{"qty":"x"}]}`, new(Order)), issues.List{
			{Code: issues.InvalidType, Path: itemsQty, Input: issues.Unknown{Type: "string"}, Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"embedded", unmarshal(`{"id":true}`, new(Order)), issues.List{
			{Code: issues.InvalidType, Path: baseID, Input: issues.Unknown{Type: "boolean"}, Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"decimal for an integer keeps the number", unmarshal(`{"items":[{},{"qty":1.5}]}`, new(Order)), issues.List{
			{Code: issues.InvalidType, Path: itemsQty, Input: num("1.5"), Expected: issues.TypeInteger, Source: "json:type"},
		}},
		{"overflow", unmarshal(`{"items":[{},{"qty":-300}]}`, new(Order)), issues.List{
			{Code: issues.TooSmall, Path: itemsQty, Input: num("-300"), Origin: "integer", Minimum: "-128", Inclusive: true, Source: "json:range"},
		}},
		{"map key", unmarshal(`{"by_id":{"abc":"x"}}`, new(Order)), issues.List{
			{Code: issues.InvalidKey, Path: byID, Input: "abc", Key: "abc", Origin: "map", Source: "json:key",
				Issues: []issues.Issue{{Code: issues.InvalidFormat, Input: "abc", Format: "integer", Source: "json:format"}}},
		}},
		{"root", unmarshal(`[1]`, new(Order)), issues.List{
			{Code: issues.InvalidType, Input: issues.Unknown{Type: "array"}, Expected: issues.TypeObject, Source: "json:type"},
		}},
		{"syntax", unmarshal(`{"a":x}`, new(any)), issues.List{
			{Code: issues.Custom, Input: issues.Unknown{}, Message: "Malformed JSON at byte offset 5", Format: "json", Source: "json:syntax"},
		}},
		{"truncated", unmarshal(`{"a":1`, new(any)), issues.List{
			{Code: issues.Custom, Input: issues.Unknown{}, Message: "Incomplete JSON: the input ends at byte offset 6", Format: "json", Source: "json:syntax"},
		}},
		{"trailing", unmarshal(`{"a":1}x`, new(any)), issues.List{
			{Code: issues.Custom, Input: issues.Unknown{}, Message: "Unexpected data after the JSON value at byte offset 7", Format: "json", Source: "json:trailing"},
		}},
		{"unknown field, wrapped", fmt.Errorf("decode args: %w", strict(`{"nmae":1}`, new(Order))), issues.List{
			{Code: issues.UnrecognizedKeys, Keys: []string{"nmae"}, Source: "json:unknown_field"},
		}},
		{"unknown field, joined", errors.Join(io.EOF, strict(`{"a\"b":1}`, new(Order))), issues.List{
			{Code: issues.UnrecognizedKeys, Keys: []string{`a"b`}, Source: "json:unknown_field"},
		}},
		{"a list is itself", fmt.Errorf("x: %w", issues.List{{Code: issues.Custom}}), issues.List{{Code: issues.Custom}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := Issues(tt.err)
			if !ok || !reflect.DeepEqual(got, tt.want) {
				g, _ := json.Marshal(got)
				w, _ := json.Marshal(tt.want)
				t.Errorf("Issues(%v) = %s, %v\nwant %s", tt.err, g, ok, w)
			}
		})
	}

	for _, err := range []error{nil, io.EOF, io.ErrUnexpectedEOF, errors.New("json: something else"),
		&json.InvalidUnmarshalError{Type: reflect.TypeFor[Order]()}, issues.List{}} {
		if got, ok := Issues(err); ok {
			t.Errorf("Issues(%v) = %v, true", err, got)
		}
	}
}

// TestDecodeErrorFromEncodingJSON covers the failure only encoding/json can
// see: an interface already holding a pointer is decoded into.
func TestDecodeErrorFromEncodingJSON(t *testing.T) {
	var target any = &Item{}
	err := Decode([]byte(`{"qty":"x"}`), &target)
	l, ok := err.(issues.List)
	if !ok || len(l) != 1 || l[0].Code != issues.InvalidType || l[0].Expected != issues.TypeInteger {
		t.Errorf("got %#v", err)
	}
	err = Decode([]byte(`{"nope":1}`), &target)
	if l, ok := err.(issues.List); !ok || l[0].Code != issues.UnrecognizedKeys || l[0].Keys[0] != "nope" {
		t.Errorf("unknown key in a pre-set interface: %#v", err)
	}
}

func TestLargeValueCost(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	big := strings.Repeat("a", 1<<20)
	valid := []byte(`{"name":"` + big + `","items":[{"sku":"x","qty":1}]}`)
	small := []byte(`{"name":"ab","items":[{"sku":"x","qty":1}]}`) // one-byte strings are never allocated
	invalid := []byte(`{"name":"a","items":[{"sku":"x","qty":"` + big + `"}]}`)
	var o Order
	run := func(data []byte) func() {
		return func() { o = Order{}; _ = Decode(data, &o) }
	}
	base := testing.AllocsPerRun(20, run(small))
	large := testing.AllocsPerRun(20, run(valid))
	if o.Name != big {
		t.Fatal("large value not decoded")
	}
	// The size of a value changes nothing but the one string that holds it
	// (which encoding/json/v2, under GOEXPERIMENT=jsonv2, does not allocate
	// when short).
	if large > base+1 {
		t.Errorf("1 MiB value: %v allocations, %v for a small one", large, base)
	}
	bad := testing.AllocsPerRun(20, run(invalid))
	if bad > 20 {
		t.Errorf("1 MiB invalid value: %v allocations", bad)
	}
	err := Decode(invalid, &o)
	if l, ok := err.(issues.List); !ok || len(l) != 1 || l[0].Input != big {
		t.Errorf("1 MiB invalid value not reported with its input")
	}
	t.Logf("allocations: small %v, 1 MiB %v, 1 MiB invalid %v", base, large, bad)
}

func TestExcerpt(t *testing.T) {
	for _, in := range []string{"", "x", `{"a": "日本語のタイトル", "b": "ééééééééééééé"}`, "\xff\xfe{\"a\":\"\xe6\x97\"}"} {
		data := []byte(in)
		for at := 0; at <= len(data); at++ {
			e := excerpt(data, at)
			if len(e) > excerptLen || !strings.Contains(in, e) {
				t.Errorf("%q at %d: %q", in, at, e)
			}
			if utf8.ValidString(in) && !utf8.ValidString(e) {
				t.Errorf("%q at %d: %q is cut inside a rune", in, at, e)
			}
			if len(data) >= excerptLen && len(e) < excerptLen-3 {
				t.Errorf("%q at %d: %q is shorter than it need be", in, at, e)
			}
			if at < len(data) && utf8.RuneStart(data[at]) && !strings.Contains(e, string(data[at:at+1])) {
				t.Errorf("%q at %d: %q does not hold the offending byte", in, at, e)
			}
		}
	}
}

// TestConcurrent shares the type cache and the scratch pool between
// goroutines; run with -race.
func TestConcurrent(t *testing.T) {
	type fresh struct {
		A []Item `json:"a"`
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for range 50 {
				var f fresh
				err := Decode([]byte(`{"a":[{"qty":1},{"qty":"x"}]}`), &f)
				if l, ok := err.(issues.List); !ok || len(l) != 1 || !reflect.DeepEqual(l[0].Path, P{"a", 1, "qty"}) {
					t.Errorf("goroutine %d: %v", g, err)
					return
				}
				if err := Decode([]byte(`{"a":[{"qty":1}]}`), &f); err != nil || f.A[0].Qty != 1 {
					t.Errorf("goroutine %d: %v %+v", g, err, f)
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestDeepNesting(t *testing.T) {
	// Decode refuses nesting past issues.DefaultMaxDepth before parsing
	// (see depth_test.go); the parser keeps encoding/json's own limit as
	// its bound on recursion.
	deep := bytes.Repeat([]byte("["), maxDepth+1)
	if l, ok := Decode(deep, new(any)).(issues.List); !ok || len(l) != 1 || l[0].Source != "selfheal:depth" {
		t.Errorf("Decode: got %v", l)
	}
	p := parser{data: deep}
	if _, ok := p.parse(); ok || p.errAt != maxDepth {
		t.Errorf("parse: ok %v at %d, want a failure at %d", ok, p.errAt, maxDepth)
	}
	within := append(bytes.Repeat([]byte("["), maxDepth), bytes.Repeat([]byte("]"), maxDepth)...)
	p = parser{data: within}
	if _, ok := p.parse(); !ok {
		t.Errorf("parse: depth %d fails at %d", maxDepth, p.errAt)
	}
}

func BenchmarkDecodeValid(b *testing.B) {
	data := []byte(`{"id":7,"name":"a","items":[{"sku":"x","qty":1},{"sku":"y","qty":2}],"labels":{"a":{"sku":"z"}},"active":true}`)
	b.ReportAllocs()
	for b.Loop() {
		var o Order
		if err := Decode(data, &o); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStdlibStrict(b *testing.B) {
	data := []byte(`{"id":7,"name":"a","items":[{"sku":"x","qty":1},{"sku":"y","qty":2}],"labels":{"a":{"sku":"z"}},"active":true}`)
	b.ReportAllocs()
	for b.Loop() {
		var o Order
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&o); err != nil {
			b.Fatal(err)
		}
	}
}

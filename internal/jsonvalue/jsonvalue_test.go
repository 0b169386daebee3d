package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want any
		err  bool
	}{
		{`{"n": 9007199254740993}`, map[string]any{"n": json.Number("9007199254740993")}, false},
		{` [1] `, []any{json.Number("1")}, false},
		{`{"a":1} {}`, nil, true},
		{`{"a":1} x`, nil, true},
		{`{`, nil, true},
		{``, nil, true},
	} {
		got, err := Decode([]byte(tc.in))
		if (err != nil) != tc.err || fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("Decode(%q) = %v, %v", tc.in, got, err)
		}
	}
}

func TestDecodeLocated(t *testing.T) {
	for _, tc := range []struct{ in, err string }{
		{"{\n  \"a\": 1,\n  \"b\": }", `malformed JSON at line 3, column 8: invalid character '}' looking for beginning of value`},
		{`{"a": [1, 2`, `malformed JSON at line 1, column 12: unexpected end of input`},
		{"{}\n  x", `malformed JSON at line 2, column 3: more data after the document`},
		{" \n ", `empty document: want JSON`},
		{`{"a": 1.5}`, ``},
	} {
		_, err := DecodeLocated([]byte(tc.in))
		if got := fmt.Sprint(err); tc.err == "" && err != nil || tc.err != "" && got != tc.err {
			t.Errorf("DecodeLocated(%q) = %v, want %q", tc.in, err, tc.err)
		}
	}
	var v struct{ N int }
	err := Located([]byte(`{"N": "x"}`), json.Unmarshal([]byte(`{"N": "x"}`), &v))
	if want := `wrong JSON type at line 1, column 9: N is a JSON string, want int`; fmt.Sprint(err) != want {
		t.Errorf("Located = %v, want %q", err, want)
	}
}

func TestMaxDepth(t *testing.T) {
	deep := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	if _, err := Decode(deep(MaxDepth)); err != nil {
		t.Errorf("Decode at MaxDepth: %v", err)
	}
	if _, err := DecodeLocated(deep(MaxDepth)); err != nil {
		t.Errorf("DecodeLocated at MaxDepth: %v", err)
	}
	_, err := Decode(deep(MaxDepth + 1))
	if want := "JSON nested deeper than 1000 levels (at byte 1000)"; fmt.Sprint(err) != want {
		t.Errorf("Decode past MaxDepth = %v, want %q", err, want)
	}
	// 10,000 is encoding/json's own limit; we stop well before it.
	_, err = DecodeLocated([]byte("{\n  \"a\": " + string(deep(10000)) + "}"))
	if want := "JSON nested too deeply at line 2, column 1007: more than 1000 levels of objects and arrays"; fmt.Sprint(err) != want {
		t.Errorf("DecodeLocated past MaxDepth = %v, want %q", err, want)
	}
	// Brackets inside strings, escaped quotes included, are not nesting.
	inString := `["\"` + strings.Repeat("[", 2*MaxDepth) + `"]`
	if _, err := Decode([]byte(inString)); err != nil {
		t.Errorf("Decode(brackets in a string): %v", err)
	}
	// A short document cannot be too deep and is not scanned; a long
	// malformed one is scanned without harm and left to the decoder.
	if off := tooDeep([]byte(strings.Repeat("[", MaxDepth))); off != -1 {
		t.Errorf("tooDeep(short) = %d", off)
	}
	if off := tooDeep([]byte(`"` + strings.Repeat("[", 2*MaxDepth))); off != -1 {
		t.Errorf("tooDeep(unterminated string) = %d", off)
	}
}

// decodeStd is what Decode gave before its plain-document path: the
// decoder, with exact numbers.
func decodeStd(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("trailing data")
	}
	return v, nil
}

// A plain document (no escape, valid UTF-8) is parsed without the decoder,
// to the very same values: maps, non-nil empty slices, json.Number, the
// last of repeated keys.
func TestDecodePlain(t *testing.T) {
	for _, in := range []string{
		`{"name": "A", "emial": "ann@example.com", "age": "36", "role": "Admin"}`,
		` { "a" : [ 1 , -2.5e+3 , true , false , null , { } , [ ] , "é" ] , "a" : { "b" : [ [ ] ] } } `,
		`[]`, `{}`, `0`, `-0.0E-7`, `"x"`, `null`, `true`, "\t\r\n[\"\\u00e9\"]\n",
		"\"\xff\"", `{"a":1}x`, `[1,]`, `{"a" 1}`, `01`,
	} {
		got, err := Decode([]byte(in))
		want, wantErr := decodeStd([]byte(in))
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%q) = %#v, %v; the decoder gives %#v, %v", in, got, err, want, wantErr)
		}
		if a, ok := got.([]any); ok && a == nil {
			t.Errorf("Decode(%q) gave a nil slice", in)
		}
		if plain([]byte(in)) {
			if got := DecodeScanned([]byte(in)); !reflect.DeepEqual(got, want) {
				t.Errorf("DecodeScanned(%q) = %#v; the decoder gives %#v", in, got, want)
			}
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"a": [1, "b", {"c": null}]}`, `[]`, `"\u00e9"`, `{"a":1,"a":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := Decode(data)
		want, wantErr := decodeStd(data)
		if (err != nil) != (wantErr != nil) || !reflect.DeepEqual(got, want) {
			t.Errorf("Decode(%q) = %#v, %v; the decoder gives %#v, %v", data, got, err, want, wantErr)
		}
	})
}

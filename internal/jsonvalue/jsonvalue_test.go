package jsonvalue

import (
	"encoding/json"
	"fmt"
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

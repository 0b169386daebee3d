package jsonvalue

import (
	"encoding/json"
	"fmt"
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

package issues

import (
	"encoding/json"
	"math"
	"testing"
	"unicode/utf8"

	"github.com/selfheal/selfheal/internal/testkit/golden"
)

// marshalCases hold every member of the wire form, every kind of value
// the adapters put in an input, a key or a value, and the strings
// encoding/json escapes.
var marshalCases = []Issue{
	{Code: InvalidType, Expected: TypeString, Absent: true, Path: Path{"email"}, Source: "jsonschema:required"},
	{Code: InvalidType, Expected: TypeInteger, Input: "36", Path: Path{"age"}},
	{Code: InvalidType, Expected: TypeString.Or(TypeNull), Input: nil},
	{Code: TooSmall, Origin: OriginString, Minimum: "2", Inclusive: true, Input: "A", Path: Path{"name"}},
	{Code: TooBig, Origin: OriginDate, Maximum: "2026-01-01", Exact: true, Input: 12.5},
	{Code: TooBig, Origin: OriginNumber, Maximum: "1e400", Input: json.Number("1e401")},
	{Code: InvalidFormat, Format: "regex", Pattern: `^[0-9]{5}$`, Input: "75-001", Path: Path{"address", "postcode"}},
	{Code: InvalidFormat, Format: "starts_with", Prefix: "<p", Suffix: "s", Includes: "i", Layout: "2006-01-02", Country: "FR", UniqueBy: "ID", Param: "image/png"},
	{Code: UnrecognizedKeys, Keys: []string{"emial", "<b>&x"}, Allowed: []string{"email", "name"}, Input: map[string]any{"emial": 1}},
	{Code: InvalidValue, Values: []any{"admin", 1, 2.5, true, nil, json.Number("3"), int64(-4), uint64(5), float32(1.5), map[string]any{"a": []any{1}}}, Input: "Admin"},
	{Code: NotMultipleOf, Divisor: "0.01", Input: 0.005},
	{Code: InvalidUnion, Branches: [][]Issue{{{Code: InvalidType, Expected: TypeString, Input: 1.0}}, nil, {}}, Input: 1.0},
	{Code: InvalidElement, Key: 3, Issues: []Issue{{Code: Custom, Message: "bad"}}, Path: Path{"tags", 3}},
	{Code: InvalidKey, Key: "k\u2028\u2029", Input: []any{1e21, 1e-7, 1e20, 123456789.0, math.Copysign(0, -1), 1e-6}},
	{Code: Custom, Message: "quote \" backslash \\ nl \n tab \t cr \r bs \b ff \f nul \x00 del \x7f bad \xff\xfe é 日本 😀", Check: CheckUnique},
	{Code: InvalidType, Expected: TypeObject, Input: Unknown{Type: "chan"}},
	{Code: InvalidType, Expected: TypeObject, Input: Unknown{Type: "func"}, Absent: true},
	{Code: TooSmall, Origin: OriginNumber, Minimum: "18", Ref: &Ref{Path: Path{"min"}, Value: 18}, Input: 3},
	{Code: InvalidType, Absent: true, When: &Condition{Op: CondEquals, Fields: []Path{{"kind"}}, Values: []any{"card"}}},
	{Code: InvalidType, Input: make(chan int)},
	{Code: InvalidType, Input: math.NaN()},
	{Code: InvalidType, Input: json.RawMessage(`{ "a" : 1 }`), Path: Path{int64(1), uint64(2), "a.b", "", "日本"}},
	{Code: Custom, Check: "omitted"},
	{},
}

// unrepresentable hold values JSON cannot write where a list, a key or a
// compared value holds them: each is written as null, and the rest of the
// issue stays.
var unrepresentable = []Issue{
	{Code: InvalidValue, Values: []any{"a", math.NaN(), make(chan int)}, Key: math.Inf(1), Input: "b"},
	{Code: TooSmall, Origin: OriginNumber, Minimum: "1", Ref: &Ref{Path: Path{"min"}, Value: func() {}}, Input: 0},
	{Code: InvalidType, Absent: true, When: &Condition{Op: CondEquals, Fields: []Path{{"kind"}}, Values: []any{math.Inf(-1), "card"}}},
}

// TestMarshalJSON: the wire form of every case, one line each.
func TestMarshalJSON(t *testing.T) {
	var out []byte
	for _, is := range append(marshalCases[:len(marshalCases):len(marshalCases)], unrepresentable...) {
		data, err := json.Marshal(is)
		if err != nil {
			t.Fatal(err)
		}
		out = append(append(out, data...), '\n')
	}
	golden.Check(t, "marshal.golden", out)
}

// FuzzMarshalJSON: whatever the strings and numbers, an issue's JSON is
// valid JSON that reads back with the same code, path and message.
func FuzzMarshalJSON(f *testing.F) {
	f.Add("emial", "<b>&\u2028", 1.5, int64(-3))
	f.Add("\xff\x00\"\\", "", 1e21, int64(0))
	f.Add("", "日本\t", 1e-7, int64(1<<62))
	f.Fuzz(func(t *testing.T, a, b string, x float64, n int64) {
		is := Issue{
			Code: Code(a), Path: Path{a, int(n % 1000), b}, Input: a, Expected: Types(n),
			Minimum: Number(b), Keys: []string{a, b}, Values: []any{x, n, a},
			Key: b, Message: a, Source: b,
			Issues: []Issue{{Code: TooBig, Input: x, Maximum: Number(a)}},
		}
		got, err := json.Marshal(is)
		if err != nil || !json.Valid(got) {
			t.Fatalf("%v: %s", err, got)
		}
		var back Issue
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("%v: %s", err, got)
		}
		// Invalid UTF-8 reads back as U+FFFD, one per byte.
		if string(back.Code) != back.Message || utf8.ValidString(a) && back.Message != a || len(back.Path) != 3 {
			t.Fatalf("read back %+v from %s", back, got)
		}
	})
}

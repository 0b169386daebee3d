package issues

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

// marshalReflect is the issue's JSON as encoding/json writes the wire
// struct: the form MarshalJSON wrote before it was written by hand, kept as
// the oracle the hand-written encoder must equal byte for byte.
func marshalReflect(is Issue) ([]byte, error) {
	j := jsonIssue{
		Code: is.Code, Path: is.Path, Expected: is.Expected.String(), Origin: is.Origin,
		Minimum: is.Minimum, Maximum: is.Maximum, Exact: is.Exact,
		Format: is.Format, Pattern: is.Pattern, Prefix: is.Prefix, Suffix: is.Suffix, Includes: is.Includes,
		Layout: is.Layout, Country: is.Country, UniqueBy: is.UniqueBy, Param: is.Param, Keys: is.Keys, Allowed: is.Allowed,
		Values: is.Values, Divisor: is.Divisor, Errors: is.Branches, Issues: is.Issues,
		Key: is.Key, Message: is.Message, Check: is.Check, Ref: is.Ref, When: is.When, Source: is.Source,
	}
	if j.Path == nil {
		j.Path = Path{}
	}
	if is.Code == TooSmall || is.Code == TooBig {
		inc := is.Inclusive
		j.Inclusive = &inc
	}
	if u, ok := is.Input.(Unknown); ok && !is.Absent {
		t := u.Type
		j.Received = &t
	} else if !is.Absent {
		raw, err := json.Marshal(is.Input)
		if err != nil {
			raw = []byte("null")
		}
		j.Input = raw
	}
	return json.Marshal(j)
}

// jsonAppendCases hold every member of the wire form, every kind of value
// the adapters put in an input, a key or a value, and the strings
// encoding/json escapes.
var jsonAppendCases = []Issue{
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
	{Code: Custom, Omitted: 7, Check: "omitted"},
	{},
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	for i, is := range jsonAppendCases {
		want, err := marshalReflect(is)
		if err != nil {
			t.Fatalf("case %d: the oracle failed: %v", i, err)
		}
		got, err := json.Marshal(is)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

// FuzzAppendJSON checks the hand-written encoder against encoding/json on
// strings and numbers in every place the wire form holds them.
func FuzzAppendJSON(f *testing.F) {
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
		want, err := marshalReflect(is)
		if err != nil {
			// encoding/json refuses NaN and infinities in Values; the
			// encoder writes null for them instead of failing the list.
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				t.Fatalf("oracle: %v", err)
			}
			return
		}
		got, _ := json.Marshal(is)
		if string(got) != string(want) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
		if !strings.HasPrefix(string(got), `{"code":`) {
			t.Fatalf("%s", got)
		}
	})
}

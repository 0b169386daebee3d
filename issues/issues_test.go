package issues

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestPathString(t *testing.T) {
	tests := []struct {
		path Path
		want string
	}{
		{nil, "(root)"},
		{Path{}, "(root)"},
		{Path{"name"}, "name"},
		{Path{"items", 0, "name"}, "items[0].name"},
		{Path{0}, "[0]"},
		{Path{"labels", "a.b"}, `labels["a.b"]`},
		{Path{"a.b"}, `["a.b"]`},
		{Path{""}, `[""]`},
		{Path{"(root)"}, `["(root)"]`},
		{Path{"first-name"}, `["first-name"]`},
		{Path{"_x", "$y", "z9"}, "_x.$y.z9"},
		{Path{"9z"}, `["9z"]`},
		{Path{"q", `say "hi"\`}, `q["say \"hi\"\\"]`},
		{Path{"nl\nx"}, `["nl\nx"]`},
		{Path{"nul\x00"}, `["nul\u0000"]`},
		{Path{"bad\xffutf8"}, `["bad\ufffdutf8"]`},
		{Path{"ключ"}, `["ключ"]`},
		{Path{"m", int64(3), uint64(4)}, "m[3][4]"},
		{Path{"f", 1.5}, `f[?]`},
		{Path{"f", int8(-2), uint16(7)}, `f[-2][7]`},
		{Path{"f", map[string]int{}}, `f[?]`},
	}
	for _, tt := range tests {
		if got := tt.path.String(); got != tt.want {
			t.Errorf("%#v.String() = %s, want %s", tt.path, got, tt.want)
		}
	}
}

func TestPathCompare(t *testing.T) {
	tests := []struct {
		a, b Path
		want int
	}{
		{Path{"a"}, Path{"b"}, -1},
		{Path{"a"}, Path{"a", 0}, -1},
		{Path{"items", 2}, Path{"items", 10}, -1},
		{Path{"items", 0}, Path{"items", "x"}, -1},
		{Path{"b"}, Path{"a", "z"}, 1},
		{Path{"a", 1}, Path{"a", 1}, 0},
		{nil, Path{"a"}, -1},
	}
	for _, tt := range tests {
		got := tt.a.Compare(tt.b)
		if (got < 0) != (tt.want < 0) || (got > 0) != (tt.want > 0) {
			t.Errorf("%v.Compare(%v) = %d, want sign of %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestPathAppendDoesNotShare(t *testing.T) {
	parent := make(Path, 1, 8)
	parent[0] = "items"
	a := parent.Append(0)
	b := parent.Append(1)
	if a.String() != "items[0]" || b.String() != "items[1]" {
		t.Fatalf("siblings share storage: %s %s", a, b)
	}
}

func TestIssueJSONShape(t *testing.T) {
	tests := []struct {
		name string
		in   Issue
		want string
	}{
		{"missing", Issue{Code: InvalidType, Path: Path{"id"}, Absent: true, Expected: TypeString},
			`{"code":"invalid_type","path":["id"],"expected":"string"}`},
		{"null input", Issue{Code: InvalidType, Path: Path{"id"}, Input: nil, Expected: TypeString},
			`{"code":"invalid_type","path":["id"],"input":null,"expected":"string"}`},
		{"exclusive bound", Issue{Code: TooBig, Path: Path{"n"}, Input: 11, Origin: "number", Maximum: "1e1"},
			`{"code":"too_big","path":["n"],"input":11,"origin":"number","maximum":1e1,"inclusive":false}`},
		{"date bound", Issue{Code: TooSmall, Input: "2020-01-01T00:00:00Z", Origin: "date", Minimum: "2024-01-01T00:00:00Z", Inclusive: true},
			`{"code":"too_small","path":[],"input":"2020-01-01T00:00:00Z","origin":"date","minimum":"2024-01-01T00:00:00Z","inclusive":true}`},
		{"union", Issue{Code: InvalidUnion, Input: 1, Branches: [][]Issue{{{Code: InvalidType, Expected: TypeString, Input: 1}}}},
			`{"code":"invalid_union","path":[],"input":1,"errors":[[{"code":"invalid_type","path":[],"input":1,"expected":"string"}]]}`},
		{"unknown input", Issue{Code: InvalidType, Path: Path{"age"}, Input: Unknown{Type: "string"}, Expected: TypeInteger},
			`{"code":"invalid_type","path":["age"],"expected":"integer","received":"string"}`},
		{"unrepresentable input", Issue{Code: Custom, Input: make(chan int), Message: "no"},
			`{"code":"custom","path":[],"input":null,"message":"no"}`},
		{"two types in order", Issue{Code: InvalidType, Path: Path{"n"}, Input: "x", Expected: TypeNull.Or(TypeInteger)},
			`{"code":"invalid_type","path":["n"],"input":"x","expected":"null|integer"}`},
		{"regex", Issue{Code: InvalidFormat, Input: "x", Format: "regex", Pattern: "^a"},
			`{"code":"invalid_format","path":[],"input":"x","format":"regex","pattern":"^a"}`},
		{"starts_with", Issue{Code: InvalidFormat, Input: "x", Format: "starts_with", Prefix: "inv_"},
			`{"code":"invalid_format","path":[],"input":"x","format":"starts_with","prefix":"inv_"}`},
		{"ends_with", Issue{Code: InvalidFormat, Input: "x", Format: "ends_with", Suffix: ".pdf"},
			`{"code":"invalid_format","path":[],"input":"x","format":"ends_with","suffix":".pdf"}`},
		{"includes", Issue{Code: InvalidFormat, Input: "x", Format: "includes", Includes: "@"},
			`{"code":"invalid_format","path":[],"input":"x","format":"includes","includes":"@"}`},
		{"time layout", Issue{Code: InvalidFormat, Input: "x", Format: "time_layout", Layout: "2006-01-02"},
			`{"code":"invalid_format","path":[],"input":"x","format":"time_layout","layout":"2006-01-02"}`},
		{"postcode", Issue{Code: InvalidFormat, Input: "x", Format: "postcode", Country: "US"},
			`{"code":"invalid_format","path":[],"input":"x","format":"postcode","country":"US"}`},
		{"mimetype", Issue{Code: InvalidFormat, Input: "x", Format: "mimetype", Param: "image/png"},
			`{"code":"invalid_format","path":[],"input":"x","format":"mimetype","param":"image/png"}`},
		{"unique by", Issue{Code: Custom, Path: Path{"users"}, Input: []any{}, Check: CheckUnique, UniqueBy: "email", Values: []any{"a"}},
			`{"code":"custom","path":["users"],"input":[],"uniqueBy":"email","values":["a"],"check":"unique"}`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if string(got) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

func TestIssueJSONRoundTrip(t *testing.T) {
	list := List{
		{Code: InvalidType, Path: Path{"id"}, Absent: true, Expected: TypeString, Source: "jsonschema:required"},
		{Code: InvalidType, Path: Path{"id"}, Input: nil, Expected: TypeString},
		{Code: TooSmall, Path: Path{"items", 0, "qty"}, Input: json.Number("0"), Origin: "number", Minimum: "0.1", Inclusive: true},
		{Code: TooBig, Path: Path{"name"}, Input: "abcdef", Origin: "string", Maximum: "5", Exact: true, Inclusive: true},
		{Code: InvalidFormat, Path: Path{"email"}, Input: "x", Format: "regex", Pattern: `^\d+$`},
		{Code: InvalidFormat, Path: Path{"id"}, Input: "x", Format: "starts_not_with", Prefix: "_"},
		{Code: InvalidFormat, Path: Path{"file"}, Input: "x", Format: "ends_with", Suffix: ".pdf"},
		{Code: InvalidFormat, Path: Path{"q"}, Input: "x", Format: "excludes_any", Includes: "<>"},
		{Code: InvalidFormat, Path: Path{"day"}, Input: "x", Format: "time_layout", Layout: "2006-01-02"},
		{Code: InvalidFormat, Path: Path{"zip"}, Input: "x", Format: "postcode", Country: "US"},
		{Code: InvalidFormat, Path: Path{"up"}, Input: "x", Format: "mimetype", Param: "image/png"},
		{Code: Custom, Path: Path{"users"}, Input: []any{}, Check: CheckUnique, UniqueBy: "email", Values: []any{"a"}},
		{Code: InvalidType, Path: Path{"n"}, Input: "x", Expected: TypeInteger.Or(TypeNull)},
		{Code: InvalidType, Path: Path{"n"}, Input: "x", Expected: TypeNull.Or(TypeInteger)},
		{Code: InvalidType, Path: Path{"v"}, Input: "x", Expected: TypeString.Or(TypeNumber).Or(TypeBoolean).Or(TypeNull).Or(TypeObject).Or(TypeArray).Or(TypeInteger)},
		{Code: NotMultipleOf, Path: Path{"n"}, Input: json.Number("7"), Divisor: "5"},
		{Code: UnrecognizedKeys, Input: map[string]any{"nmae": "x"}, Keys: []string{"nmae"}, Allowed: []string{"name"}},
		{Code: InvalidValue, Path: Path{"color"}, Input: "Blue", Values: []any{"red", json.Number("2"), true, nil}},
		{Code: InvalidElement, Path: Path{"tags"}, Input: []any{"a"}, Key: 3, Origin: "set",
			Issues: []Issue{{Code: TooBig, Input: "a", Origin: "string", Maximum: "0", Inclusive: true}}},
		{Code: InvalidKey, Path: Path{"m"}, Input: map[string]any{}, Key: "BAD", Origin: "map"},
		{Code: InvalidUnion, Input: "x", Branches: [][]Issue{{{Code: InvalidType, Expected: TypeNumber, Input: "x"}}, {{Code: Custom, Message: "m", Input: "x"}}}},
		{Code: Custom, Path: Path{"a", "b.c"}, Input: "x", Message: "must be ok"},
		{Code: InvalidType, Path: Path{"card"}, Absent: true, Expected: TypeString,
			When: &Condition{Op: CondEquals, Fields: []Path{{"mode"}}, Values: []any{"card"}}},
		{Code: Custom, Path: Path{"tags"}, Input: []any{"a", "a"}, Check: CheckUnique, Values: []any{"a"}},
		{Code: InvalidType, Path: Path{"age"}, Input: Unknown{Type: "string"}, Expected: TypeInteger},
		{Code: Custom, Input: Unknown{}, Message: "Malformed JSON at byte offset 3"},
		{Code: TooSmall, Path: Path{"end"}, Input: "2020", Origin: "date", Minimum: "2021", Inclusive: true,
			Ref: &Ref{Path: Path{"start"}, Value: "2021"}},
	}
	data, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	var back List
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	for i := range list {
		want := list[i]
		if want.Path == nil {
			want.Path = Path{}
		}
		fixEmpty(&want)
		if !reflect.DeepEqual(back[i], want) {
			t.Errorf("issue %d did not round-trip:\n got %#v\nwant %#v", i, back[i], want)
		}
	}
}

// fixEmpty mirrors what JSON cannot tell apart: nested paths decode as
// empty, not nil.
func fixEmpty(is *Issue) {
	if is.Path == nil {
		is.Path = Path{}
	}
	for b := range is.Branches {
		for i := range is.Branches[b] {
			fixEmpty(&is.Branches[b][i])
		}
	}
	for i := range is.Issues {
		fixEmpty(&is.Issues[i])
	}
}

func TestNumberJSON(t *testing.T) {
	for _, in := range []string{`18`, `0.1`, `1e9`, `-0`, `"1h30m"`, `"2024-01-01"`} {
		var n Number
		if err := json.Unmarshal([]byte(in), &n); err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		out, _ := json.Marshal(n)
		if string(out) != in {
			t.Errorf("%s came back as %s", in, out)
		}
	}
	var n Number
	if err := json.Unmarshal([]byte(`true`), &n); err == nil {
		t.Error("true accepted as a number")
	}
}

func TestListError(t *testing.T) {
	l := List{{Code: TooSmall, Path: Path{"a"}}, {Code: InvalidType, Path: Path{"b", 0}}, {Code: Custom}, {Code: Custom}, {Code: Custom}}
	want := "a: too_small; b[0]: invalid_type; (root): custom; and 2 more"
	if got := l.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := (List{}).Error(); got != "no issues" {
		t.Errorf("empty list: %q", got)
	}
}

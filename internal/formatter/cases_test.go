package formatter

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

type P = issues.Path

// cases covers every code, every origin and variant of the size codes, every
// format the catalogs word, and the hints. The golden files hold their lines
// in every shipped language.
var cases = []struct {
	name  string
	issue issues.Issue
}{
	{"invalid_type", issues.Issue{Code: issues.InvalidType, Path: P{"name"}, Input: 42.0, Expected: issues.TypeString}},
	{"invalid_type.null", issues.Issue{Code: issues.InvalidType, Path: P{"name"}, Input: nil, Expected: issues.TypeString}},
	{"invalid_type.union_type", issues.Issue{Code: issues.InvalidType, Path: P{"note"}, Input: true, Expected: issues.TypeString.Or(issues.TypeNull)}},
	{"invalid_type.object_for_array", issues.Issue{Code: issues.InvalidType, Path: P{"tags"}, Input: map[string]any{"a": 1.0}, Expected: issues.TypeArray}},
	{"invalid_type.unknown", issues.Issue{Code: issues.InvalidType, Path: P{"age"}, Input: issues.Unknown{Type: "string"}, Expected: issues.TypeInteger}},
	{"value.unknown", issues.Issue{Code: issues.Custom, Input: issues.Unknown{}, Message: "Malformed JSON at byte offset 17"}},
	{"value.unknown_typed", issues.Issue{Code: issues.TooBig, Path: P{"n"}, Input: issues.Unknown{Type: "number"}, Origin: "integer", Maximum: "127", Inclusive: true}},
	{"invalid_type.missing", issues.Issue{Code: issues.InvalidType, Path: P{"email"}, Absent: true, Expected: issues.TypeString}},
	{"invalid_type.missing_untyped", issues.Issue{Code: issues.InvalidType, Path: P{"email"}, Absent: true}},
	{"invalid_type.missing.values", issues.Issue{Code: issues.InvalidType, Path: P{"schedule", "kind"}, Absent: true, Expected: issues.TypeString,
		Values: []any{"daily", "weekly"}, Source: "jsonschema:oneOf"}},
	{"invalid_type.quoted_number", issues.Issue{Code: issues.InvalidType, Path: P{"age"}, Input: "42", Expected: issues.TypeInteger}},
	{"invalid_type.quoted_decimal", issues.Issue{Code: issues.InvalidType, Path: P{"price"}, Input: " 9.99", Expected: issues.TypeNumber}},
	{"invalid_type.quoted_decimal_for_integer", issues.Issue{Code: issues.InvalidType, Path: P{"age"}, Input: "4.5", Expected: issues.TypeInteger}},
	{"invalid_type.quoted_boolean", issues.Issue{Code: issues.InvalidType, Path: P{"active"}, Input: "true", Expected: issues.TypeBoolean}},
	{"invalid_type.json_object", issues.Issue{Code: issues.InvalidType, Path: P{"address"}, Input: `{"city":"Paris"}`, Expected: issues.TypeObject}},
	{"invalid_type.json_array", issues.Issue{Code: issues.InvalidType, Path: P{"tags"}, Input: `["a","b"]`, Expected: issues.TypeArray}},
	{"invalid_type.not_json", issues.Issue{Code: issues.InvalidType, Path: P{"address"}, Input: `{city: Paris}`, Expected: issues.TypeObject}},

	{"too_small.string", issues.Issue{Code: issues.TooSmall, Path: P{"name"}, Input: "ab", Origin: "string", Minimum: "3", Inclusive: true}},
	{"too_small.string.one", issues.Issue{Code: issues.TooSmall, Path: P{"name"}, Input: "", Origin: "string", Minimum: "1", Inclusive: true}},
	{"too_small.string.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"name"}, Input: "abc", Origin: "string", Minimum: "3"}},
	{"too_small.string.exact", issues.Issue{Code: issues.TooSmall, Path: P{"code"}, Input: "ab", Origin: "string", Minimum: "6", Inclusive: true, Exact: true}},
	{"too_small.number", issues.Issue{Code: issues.TooSmall, Path: P{"age"}, Input: json.Number("17"), Origin: "number", Minimum: "18", Inclusive: true}},
	{"too_small.number.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"amount"}, Input: 0.0, Origin: "number", Minimum: "0"}},
	{"too_small.number.decimal", issues.Issue{Code: issues.TooSmall, Path: P{"rate"}, Input: 0.05, Origin: "number", Minimum: "0.1", Inclusive: true}},
	{"too_small.integer", issues.Issue{Code: issues.TooSmall, Path: P{"page"}, Input: 0, Origin: "integer", Minimum: "1", Inclusive: true}},
	{"too_small.integer.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"page"}, Input: 0, Origin: "int", Minimum: "0"}},
	{"too_small.bigint", issues.Issue{Code: issues.TooSmall, Path: P{"id"}, Input: json.Number("-1"), Origin: "bigint", Minimum: "1e9", Inclusive: true}},
	{"too_small.array", issues.Issue{Code: issues.TooSmall, Path: P{"items"}, Input: []any{}, Origin: "array", Minimum: "1", Inclusive: true}},
	{"too_small.array.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"items"}, Input: []any{1.0}, Origin: "array", Minimum: "1"}},
	{"too_small.array.exact", issues.Issue{Code: issues.TooSmall, Path: P{"point"}, Input: []any{1.0}, Origin: "array", Minimum: "2", Inclusive: true, Exact: true}},
	{"too_small.set", issues.Issue{Code: issues.TooSmall, Path: P{"tags"}, Input: []any{"a"}, Origin: "set", Minimum: "2", Inclusive: true}},
	{"too_small.object", issues.Issue{Code: issues.TooSmall, Path: P{"labels"}, Input: map[string]any{}, Origin: "object", Minimum: "1", Inclusive: true}},
	{"too_small.object.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"labels"}, Input: map[string]any{"a": "b"}, Origin: "object", Minimum: "1"}},
	{"too_small.object.exact", issues.Issue{Code: issues.TooSmall, Path: P{"labels"}, Input: map[string]any{"a": "b"}, Origin: "map", Minimum: "2", Inclusive: true, Exact: true}},
	{"too_small.date", issues.Issue{Code: issues.TooSmall, Path: P{"start"}, Input: "2020-01-01T00:00:00Z", Origin: "date", Minimum: "2026-01-01T00:00:00Z", Inclusive: true}},
	{"too_small.date.epoch", issues.Issue{Code: issues.TooSmall, Path: P{"start"}, Input: 1577836800000.0, Origin: "date", Minimum: "1767225600000", Inclusive: true}},
	{"too_small.date.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"start"}, Input: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Origin: "date", Minimum: "2026-01-01T00:00:00Z"}},
	{"too_small.duration", issues.Issue{Code: issues.TooSmall, Path: P{"timeout"}, Input: "500ms", Origin: "duration", Minimum: "1s", Inclusive: true}},
	{"too_small.duration.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"timeout"}, Input: time.Second, Origin: "duration", Minimum: "1s"}},
	{"too_small.file", issues.Issue{Code: issues.TooSmall, Path: P{"upload"}, Input: 10, Origin: "file", Minimum: "1024", Inclusive: true}},
	{"too_small.file.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"upload"}, Input: 0, Origin: "file", Minimum: "0"}},
	{"too_small.file.exact", issues.Issue{Code: issues.TooSmall, Path: P{"key"}, Input: []byte("short"), Origin: "bytes", Minimum: "32", Inclusive: true, Exact: true}},
	{"too_small.other_origin", issues.Issue{Code: issues.TooSmall, Path: P{"x"}, Input: "v", Origin: "custom-thing", Minimum: "2", Inclusive: true}},
	{"too_small.other_origin.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"x"}, Input: "v", Origin: "custom-thing", Minimum: "2"}},
	{"too_small.exact", issues.Issue{Code: issues.TooSmall, Path: P{"x"}, Input: 1, Origin: "custom-thing", Minimum: "2", Inclusive: true, Exact: true}},
	{"too_small.no_origin", issues.Issue{Code: issues.TooSmall, Path: P{"qty"}, Input: 0, Minimum: "1", Inclusive: true}},

	{"too_big.string", issues.Issue{Code: issues.TooBig, Path: P{"name"}, Input: "abcdef", Origin: "string", Maximum: "5", Inclusive: true}},
	{"too_big.string.one", issues.Issue{Code: issues.TooBig, Path: P{"initial"}, Input: "ab", Origin: "string", Maximum: "1", Inclusive: true}},
	{"too_big.string.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"name"}, Input: "abcde", Origin: "string", Maximum: "5"}},
	{"too_big.string.exact", issues.Issue{Code: issues.TooBig, Path: P{"code"}, Input: "abcdefg", Origin: "string", Maximum: "6", Inclusive: true, Exact: true}},
	{"too_big.string.long", issues.Issue{Code: issues.TooBig, Path: P{"bio"}, Input: strings.Repeat("a", 5000), Origin: "string", Maximum: "280", Inclusive: true}},
	{"too_big.string.unicode", issues.Issue{Code: issues.TooBig, Path: P{"title"}, Input: "日本語のタイトル", Origin: "string", Maximum: "5", Inclusive: true}},
	{"too_big.number", issues.Issue{Code: issues.TooBig, Path: P{"age"}, Input: 151.0, Origin: "number", Maximum: "150", Inclusive: true}},
	{"too_big.number.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"ratio"}, Input: 1.0, Origin: "number", Maximum: "1"}},
	{"too_big.number.exponent", issues.Issue{Code: issues.TooBig, Path: P{"n"}, Input: 2e21, Origin: "number", Maximum: "1e21", Inclusive: true}},
	{"too_big.integer", issues.Issue{Code: issues.TooBig, Path: P{"limit"}, Input: 101, Origin: "integer", Maximum: "100", Inclusive: true}},
	{"too_big.integer.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"limit"}, Input: 100, Origin: "integer", Maximum: "100"}},
	{"too_big.array", issues.Issue{Code: issues.TooBig, Path: P{"tags"}, Input: []any{"a", "b", "c"}, Origin: "array", Maximum: "2", Inclusive: true}},
	{"too_big.array.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"tags"}, Input: []any{"a", "b"}, Origin: "array", Maximum: "2"}},
	{"too_big.array.exact", issues.Issue{Code: issues.TooBig, Path: P{"point"}, Input: []any{1.0, 2.0, 3.0}, Origin: "array", Maximum: "2", Inclusive: true, Exact: true}},
	{"too_big.array.long", issues.Issue{Code: issues.TooBig, Path: P{"ids"}, Input: longArray(500), Origin: "array", Maximum: "100", Inclusive: true}},
	{"too_big.object", issues.Issue{Code: issues.TooBig, Path: P{"labels"}, Input: map[string]any{"a": "1", "b": "2"}, Origin: "object", Maximum: "1", Inclusive: true}},
	{"too_big.object.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"labels"}, Input: map[string]any{"a": "1"}, Origin: "record", Maximum: "1"}},
	{"too_big.object.exact", issues.Issue{Code: issues.TooBig, Path: P{"labels"}, Input: map[string]any{"a": "1", "b": "2"}, Origin: "object", Maximum: "1", Inclusive: true, Exact: true}},
	{"too_big.date", issues.Issue{Code: issues.TooBig, Path: P{"due"}, Input: "2099-01-01", Origin: "date", Maximum: "2030-12-31", Inclusive: true}},
	{"too_big.date.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"due"}, Input: "2031-01-01", Origin: "date", Maximum: "2031-01-01"}},
	{"too_big.duration", issues.Issue{Code: issues.TooBig, Path: P{"ttl"}, Input: "48h", Origin: "duration", Maximum: "24h", Inclusive: true}},
	{"too_big.duration.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"ttl"}, Input: "24h", Origin: "duration", Maximum: "24h"}},
	{"too_big.file", issues.Issue{Code: issues.TooBig, Path: P{"upload"}, Input: 2097152, Origin: "file", Maximum: "1048576", Inclusive: true}},
	{"too_big.file.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"upload"}, Input: 1048576, Origin: "file", Maximum: "1048576"}},
	{"too_big.file.exact", issues.Issue{Code: issues.TooBig, Path: P{"key"}, Input: []byte(strings.Repeat("k", 40)), Origin: "bytes", Maximum: "32", Inclusive: true, Exact: true}},
	{"too_big.depth", issues.Issue{Code: issues.TooBig, Path: P{"filter", "and", 0, "or"}, Input: issues.Unknown{Type: "array"}, Origin: issues.OriginDepth, Maximum: "4", Inclusive: true, Source: "selfheal:depth"}},
	{"too_big.other_origin", issues.Issue{Code: issues.TooBig, Path: P{"x"}, Input: "v", Origin: "custom-thing", Maximum: "0", Inclusive: true}},
	{"too_big.other_origin.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"x"}, Input: "v", Origin: "custom-thing", Maximum: "0"}},
	{"too_big.exact", issues.Issue{Code: issues.TooBig, Path: P{"x"}, Input: 3, Origin: "custom-thing", Maximum: "2", Inclusive: true, Exact: true}},

	{"invalid_format.regex", issues.Issue{Code: issues.InvalidFormat, Path: P{"sku"}, Input: "ab-12", Format: "regex", Pattern: `^[A-Z]{3}-\d{4}$`}},
	{"invalid_format.regex_syntax", issues.Issue{Code: issues.InvalidFormat, Path: P{"filter"}, Input: "([a-z", Format: "regex"}},
	{"invalid_format.starts_with", issues.Issue{Code: issues.InvalidFormat, Path: P{"id"}, Input: "cus_123", Format: "starts_with", Prefix: "inv_"}},
	{"invalid_format.ends_with", issues.Issue{Code: issues.InvalidFormat, Path: P{"file"}, Input: "report.txt", Format: "ends_with", Suffix: ".pdf"}},
	{"invalid_format.includes", issues.Issue{Code: issues.InvalidFormat, Path: P{"query"}, Input: "name", Format: "includes", Includes: ":"}},
	{"invalid_format.unknown_format", issues.Issue{Code: issues.InvalidFormat, Path: P{"color"}, Input: "#zzz", Format: "hexcolor-custom"}},
	{"invalid_format.no_format", issues.Issue{Code: issues.InvalidFormat, Path: P{"v"}, Input: "x"}},

	{"not_multiple_of", issues.Issue{Code: issues.NotMultipleOf, Path: P{"qty"}, Input: 7, Divisor: "5"}},
	{"not_multiple_of.negative", issues.Issue{Code: issues.NotMultipleOf, Path: P{"qty"}, Input: -7, Divisor: "5"}},
	{"not_multiple_of.decimal", issues.Issue{Code: issues.NotMultipleOf, Path: P{"price"}, Input: 0.35, Divisor: "0.1"}},
	{"not_multiple_of.cents", issues.Issue{Code: issues.NotMultipleOf, Path: P{"amount"}, Input: json.Number("10.005"), Divisor: "0.01"}},
	{"not_multiple_of.exponent", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: json.Number("1e3"), Divisor: "1e-7"}},
	{"not_multiple_of.plain", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: "7", Divisor: "5"}},
	// The field's bounds (an adapter gives the multiples they allow): a
	// neighbour they refuse is not suggested.
	{"not_multiple_of.above_maximum", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: 25, Divisor: "2", Maximum: "20", Inclusive: true}},
	{"not_multiple_of.at_maximum", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: 19, Divisor: "2", Maximum: "20", Inclusive: true}},
	{"not_multiple_of.exclusive_maximum", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: 19, Divisor: "2", Maximum: "20"}},
	{"not_multiple_of.below_minimum", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: -3, Divisor: "2", Minimum: "0", Inclusive: true}},
	{"not_multiple_of.within", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: 7, Divisor: "2", Minimum: "0", Maximum: "20", Inclusive: true}},
	{"not_multiple_of.decimal_bounds", issues.Issue{Code: issues.NotMultipleOf, Path: P{"temp"}, Input: 35.3, Divisor: "0.5", Minimum: "5", Maximum: "35", Inclusive: true}},
	{"not_multiple_of.none_within", issues.Issue{Code: issues.NotMultipleOf, Path: P{"n"}, Input: 5, Divisor: "4", Minimum: "5", Maximum: "7", Inclusive: true}},

	{"unrecognized_keys", issues.Issue{Code: issues.UnrecognizedKeys, Input: map[string]any{"zzz": 1.0}, Keys: []string{"zzz"}}},
	{"unrecognized_keys.many", issues.Issue{Code: issues.UnrecognizedKeys, Keys: []string{"foo", "bar"}}},
	{"unrecognized_keys.allowed", issues.Issue{Code: issues.UnrecognizedKeys, Path: P{"user"}, Keys: []string{"zzz"}, Allowed: []string{"name", "email"}}},
	{"unrecognized_keys.suggest", issues.Issue{Code: issues.UnrecognizedKeys, Keys: []string{"nmae"}, Allowed: []string{"name", "email", "age"}}},
	{"unrecognized_keys.suggest_case", issues.Issue{Code: issues.UnrecognizedKeys, Keys: []string{"userId", "Email"}, Allowed: []string{"user_id", "email"}}},
	{"unrecognized_keys.many_allowed", issues.Issue{Code: issues.UnrecognizedKeys, Keys: []string{"x"}, Allowed: []string{"a1", "a2", "a3", "a4", "a5", "a6", "a7", "a8", "a9", "a10", "a11", "a12"}}},
	{"unrecognized_keys.near_miss", issues.Issue{Code: issues.UnrecognizedKeys, Input: map[string]any{"path": "a", "edits": []any{}, "dryrun": true},
		Keys: []string{"dryrun"}, Allowed: []string{"dryRun"}, Check: issues.CheckNearMiss, Source: nearmiss.SourceTypo}},
	{"unrecognized_keys.near_miss_many", issues.Issue{Code: issues.UnrecognizedKeys, Path: P{"edits", 0}, Input: map[string]any{"old_text": "a", "newtext": "b"},
		Keys: []string{"newtext", "old_text"}, Allowed: []string{"newText", "oldText"}, Check: issues.CheckNearMiss, Source: nearmiss.SourceTypo}},

	{"invalid_value", issues.Issue{Code: issues.InvalidValue, Path: P{"status"}, Input: "done", Values: []any{"open", "paid", "void"}}},
	{"invalid_value.suggest", issues.Issue{Code: issues.InvalidValue, Path: P{"color"}, Input: "Blue", Values: []any{"red", "orange", "yellow", "green", "cyan", "blue", "indigo", "violet", "pink", "brown", "grey", "black"}}},
	{"invalid_value.suggest_whole", issues.Issue{Code: issues.InvalidValue, Path: P{"color"}, Input: "Blue", Values: []any{"red", "green", "blue"}}},
	{"invalid_value.suggest_typo", issues.Issue{Code: issues.InvalidValue, Path: P{"currency"}, Input: "UDS", Values: []any{"USD", "EUR", "JPY"}}},
	{"invalid_value.single", issues.Issue{Code: issues.InvalidValue, Path: P{"type"}, Input: "card", Values: []any{"bank"}}},
	{"invalid_value.none", issues.Issue{Code: issues.InvalidValue, Path: P{"x"}, Input: 1.0}},
	{"invalid_value.mixed", issues.Issue{Code: issues.InvalidValue, Path: P{"level"}, Input: 4.0, Values: []any{1.0, 2.0, "three", true, nil}}},
	{"invalid_value.many", issues.Issue{Code: issues.InvalidValue, Path: P{"n"}, Input: 99.0, Values: []any{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}}},

	{"invalid_union", issues.Issue{Code: issues.InvalidUnion, Path: P{"payment"}, Input: map[string]any{"type": "card"}, Branches: [][]issues.Issue{
		{{Code: issues.InvalidValue, Path: P{"payment", "type"}, Input: "card", Values: []any{"bank"}}},
		{{Code: issues.InvalidType, Path: P{"payment", "number"}, Absent: true, Expected: issues.TypeString}},
	}}},
	{"invalid_union.one", issues.Issue{Code: issues.InvalidUnion, Path: P{"v"}, Input: "ab", Branches: [][]issues.Issue{
		{{Code: issues.TooSmall, Path: P{"v"}, Input: "ab", Origin: issues.OriginString, Minimum: "3", Inclusive: true}},
	}}},
	{"invalid_union.types", issues.Issue{Code: issues.InvalidUnion, Path: P{"filter"}, Input: 1.0, Branches: [][]issues.Issue{
		{{Code: issues.InvalidType, Path: P{"filter"}, Input: 1.0, Expected: issues.TypeObject}},
		{{Code: issues.InvalidType, Path: P{"filter"}, Input: 1.0, Expected: issues.TypeString}},
	}}},
	// The keys an object alternative requires (the adapter's Keys): the
	// object last, with them.
	{"invalid_union.types_object_keys", issues.Issue{Code: issues.InvalidUnion, Path: P{"filter"}, Input: 1.0, Branches: [][]issues.Issue{
		{{Code: issues.InvalidType, Path: P{"filter"}, Input: 1.0, Expected: issues.TypeObject, Keys: []string{"property", "value"}}},
		{{Code: issues.InvalidType, Path: P{"filter"}, Input: 1.0, Expected: issues.TypeString}},
	}}},
	// Several object alternatives: the keys they all require.
	{"invalid_union.types_objects", issues.Issue{Code: issues.InvalidUnion, Path: P{"channel"}, Input: "ops", Branches: [][]issues.Issue{
		{{Code: issues.InvalidType, Path: P{"channel"}, Input: "ops", Expected: issues.TypeObject, Keys: []string{"kind", "url"}}},
		{{Code: issues.InvalidType, Path: P{"channel"}, Input: "ops", Expected: issues.TypeObject, Keys: []string{"address", "kind"}}},
		{{Code: issues.InvalidType, Path: P{"channel"}, Input: "ops", Expected: issues.TypeInteger}},
	}}},
	{"invalid_union.discriminator", issues.Issue{Code: issues.InvalidUnion, Path: P{"channel"},
		Input: map[string]any{"kind": "Webhook", "url": "x"}, Branches: [][]issues.Issue{
			{{Code: issues.InvalidValue, Path: P{"channel", "kind"}, Input: "Webhook", Values: []any{"email"}},
				{Code: issues.InvalidType, Path: P{"channel", "address"}, Absent: true, Expected: issues.TypeString}},
			{{Code: issues.InvalidFormat, Path: P{"channel", "url"}, Input: "x", Format: "uri"},
				{Code: issues.InvalidValue, Path: P{"channel", "kind"}, Input: "Webhook", Values: []any{"webhook"}}},
		}}},
	{"invalid_union.bare", issues.Issue{Code: issues.InvalidUnion, Path: P{"v"}, Input: 1.0}},
	{"invalid_union.nested", issues.Issue{Code: issues.InvalidUnion, Path: P{"tree"}, Input: map[string]any{"next": "x"}, Branches: [][]issues.Issue{
		{{Code: issues.InvalidType, Path: P{"tree"}, Input: map[string]any{"next": "x"}, Expected: issues.TypeInteger}},
		{{Code: issues.InvalidUnion, Path: P{"tree", "next"}, Input: "x", Branches: [][]issues.Issue{
			{{Code: issues.InvalidType, Path: P{"tree", "next"}, Input: "x", Expected: issues.TypeInteger}},
			{{Code: issues.InvalidType, Path: P{"tree", "next"}, Input: "x", Expected: issues.TypeObject}},
		}}},
	}}},
	{"invalid_union.in_key", issues.Issue{Code: issues.InvalidKey, Path: P{"labels"}, Input: "k", Key: "k", Origin: "map",
		Issues: []issues.Issue{{Code: issues.InvalidUnion, Input: "k", Branches: [][]issues.Issue{
			{{Code: issues.InvalidUnion, Input: "k", Branches: [][]issues.Issue{{{Code: issues.InvalidType, Input: "k", Expected: issues.TypeInteger}}}}},
		}}}}},
	{"invalid_element.deep", deepElement(40)},

	{"invalid_key", issues.Issue{Code: issues.InvalidKey, Path: P{"labels"}, Input: "BAD KEY", Key: "BAD KEY", Origin: "map",
		Issues: []issues.Issue{{Code: issues.InvalidFormat, Input: "BAD KEY", Format: "regex", Pattern: "^[a-z]+$"}}}},
	{"invalid_key.bare", issues.Issue{Code: issues.InvalidKey, Path: P{"labels"}, Key: "BAD KEY"}},
	{"invalid_element", issues.Issue{Code: issues.InvalidElement, Path: P{"tags"}, Input: "", Key: 2, Origin: "set",
		Issues: []issues.Issue{{Code: issues.TooSmall, Input: "", Origin: "string", Minimum: "1", Inclusive: true}}}},
	{"invalid_element.bare", issues.Issue{Code: issues.InvalidElement, Path: P{"tags"}, Input: 3.0, Key: 0}},

	{"custom", issues.Issue{Code: issues.Custom, Path: P{"end"}, Input: "2026-01-01", Message: "End date must be after the start date."}},
	{"custom.bare", issues.Issue{Code: issues.Custom, Path: P{"x"}, Input: 1.0}},
	{"custom.not", issues.Issue{Code: issues.Custom, Check: issues.CheckNot, Path: P{"name"}, Input: "admin"}},
	{"custom.one_of", issues.Issue{Code: issues.Custom, Check: issues.CheckOneOf, Path: P{"id"}, Input: 3.0}},
	{"custom.never", issues.Issue{Code: issues.Custom, Check: issues.CheckNever, Path: P{"legacy"}, Input: true}},
	{"custom.content", issues.Issue{Code: issues.Custom, Check: issues.CheckContent, Path: P{"payload"}, Input: `{"a":"x"}`,
		Issues: []issues.Issue{{Code: issues.InvalidType, Path: P{"a"}, Input: "x", Expected: issues.TypeInteger}}}},
	{"custom.content.bare", issues.Issue{Code: issues.Custom, Check: issues.CheckContent, Path: P{"payload"}, Input: "e30=", Message: "Payload rejected"}},
	{"custom.contains", issues.Issue{Code: issues.Custom, Check: issues.CheckContains, Path: P{"tags"}, Input: []any{"a", "b"}, Origin: "array", Minimum: "1", Inclusive: true}},
	{"custom.contains.two", issues.Issue{Code: issues.Custom, Check: issues.CheckContains, Path: P{"tags"}, Input: []any{"a", "b"}, Origin: "array", Minimum: "2", Inclusive: true}},
	{"custom.contains.max", issues.Issue{Code: issues.Custom, Check: issues.CheckContains, Path: P{"tags"}, Input: []any{"a", "a", "a"}, Origin: "array", Maximum: "2", Inclusive: true}},
	{"custom.contains.exact", issues.Issue{Code: issues.Custom, Check: issues.CheckContains, Path: P{"tags"}, Input: []any{"a", "b"}, Origin: "array", Minimum: "1", Maximum: "1", Inclusive: true}},
	{"custom.contains.between", issues.Issue{Code: issues.Custom, Check: issues.CheckContains, Path: P{"tags"}, Input: []any{"a"}, Origin: "array", Minimum: "2", Maximum: "3", Inclusive: true}},
	{"custom.unique", issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Path: P{"tags"}, Input: []any{"a", "b", "a"}, Values: []any{"a"}}},
	{"custom.excluded", issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded, Path: P{"internal"}, Input: "x"}},
	{"custom.unique.by", issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Path: P{"users"}, Input: []any{map[string]any{"email": "a@x.io"}, map[string]any{"email": "a@x.io"}}, Values: []any{"a@x.io"}, UniqueBy: "email"}},
	{"custom.unique.bare", issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Path: P{"tags"}, Input: []any{"a", "a"}}},
	{"custom.unique.sensitive", issues.Issue{Code: issues.Custom, Check: issues.CheckUnique, Path: P{"tokens"}, Input: []any{"s3cr3t", "s3cr3t"}, Values: []any{"s3cr3t"}}},
	{"custom.excluded.when", issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded, Path: P{"x"}, Input: "y",
		When: &issues.Condition{Op: issues.CondPresent, Fields: []issues.Path{{"mode"}}}}},
	{"custom.excluded.when_unless", issues.Issue{Code: issues.Custom, Check: issues.CheckExcluded, Path: P{"discount"}, Input: 5.0,
		When: &issues.Condition{Op: issues.CondNotEquals, Fields: []issues.Path{{"plan"}}, Values: []any{"pro"}}}},
	{"custom.default", issues.Issue{Code: issues.Custom, Check: "default", Path: P{"id"}, Input: "abc"}},
	{"custom.method", issues.Issue{Code: issues.Custom, Check: "method", Path: P{"range"}, Input: map[string]any{"from": 5.0, "to": 1.0}}},
	{"custom.rule", issues.Issue{Code: issues.Custom, Check: "rule", Format: "is_sku", Path: P{"sku"}, Input: "x"}},

	{"invalid_type.missing.when", issues.Issue{Code: issues.InvalidType, Path: P{"name"}, Absent: true, Expected: issues.TypeString,
		When: &issues.Condition{Op: issues.CondEquals, Fields: []issues.Path{{"mode"}}, Values: []any{"on"}}}},
	{"invalid_type.missing.when_values", issues.Issue{Code: issues.InvalidType, Path: P{"card"}, Absent: true, Expected: issues.TypeObject,
		When: &issues.Condition{Op: issues.CondEquals, Fields: []issues.Path{{"payment", "method"}}, Values: []any{"card", "wallet"}}}},
	{"invalid_type.missing.when_pairs", issues.Issue{Code: issues.InvalidType, Path: P{"vat"}, Absent: true, Expected: issues.TypeString,
		When: &issues.Condition{Op: issues.CondNotEquals, Fields: []issues.Path{{"country"}, {"business"}}, Values: []any{"US", true}}}},
	{"invalid_type.missing.when_present", issues.Issue{Code: issues.InvalidType, Path: P{"zip"}, Absent: true, Expected: issues.TypeString,
		When: &issues.Condition{Op: issues.CondPresent, Fields: []issues.Path{{"street"}, {"city"}}}}},
	{"invalid_type.missing.when_all_present", issues.Issue{Code: issues.InvalidType, Path: P{"zip"}, Absent: true, Expected: issues.TypeString,
		When: &issues.Condition{Op: issues.CondAllPresent, Fields: []issues.Path{{"street"}, {"city"}}}}},
	{"invalid_type.missing.when_absent", issues.Issue{Code: issues.InvalidType, Path: P{"phone"}, Absent: true, Expected: issues.TypeString,
		When: &issues.Condition{Op: issues.CondAbsent, Fields: []issues.Path{{"email"}}}}},
	{"invalid_type.missing.when_all_absent", issues.Issue{Code: issues.InvalidType, Path: P{"phone"}, Absent: true, Expected: issues.TypeString,
		When: &issues.Condition{Op: issues.CondAllAbsent, Fields: []issues.Path{{"email"}, {"fax"}}}}},

	{"invalid_value.ref", issues.Issue{Code: issues.InvalidValue, Path: P{"confirm"}, Input: "abc", Values: []any{"abd"},
		Ref: &issues.Ref{Path: P{"email"}, Value: "abd"}}},
	{"invalid_value.ref.sensitive", issues.Issue{Code: issues.InvalidValue, Path: P{"password_confirm"}, Input: "hunter3", Values: []any{"hunter2"},
		Ref: &issues.Ref{Path: P{"password"}, Value: "hunter2"}}},
	{"invalid_value.ref.unknown", issues.Issue{Code: issues.InvalidValue, Path: P{"confirm"}, Input: "abc", Ref: &issues.Ref{Path: P{"Email"}}}},
	{"invalid_value.ref.absent", issues.Issue{Code: issues.InvalidValue, Path: P{"confirm"}, Input: "abc", Ref: &issues.Ref{Path: P{"email"}, Absent: true}}},
	{"invalid_value.not", issues.Issue{Code: issues.InvalidValue, Check: issues.CheckNot, Path: P{"username"}, Input: "admin", Values: []any{"admin", "root"}}},
	{"invalid_value.not.ref", issues.Issue{Code: issues.InvalidValue, Check: issues.CheckNot, Path: P{"new_name"}, Input: "bob", Values: []any{"bob"},
		Ref: &issues.Ref{Path: P{"old_name"}, Value: "bob"}}},
	{"too_small.ref", issues.Issue{Code: issues.TooSmall, Path: P{"max"}, Input: 3, Origin: "integer", Minimum: "5", Inclusive: true,
		Ref: &issues.Ref{Path: P{"min"}, Value: 5}}},
	{"too_small.ref.exclusive", issues.Issue{Code: issues.TooSmall, Path: P{"end"}, Input: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), Origin: "date",
		Minimum: "2026-02-01T00:00:00Z", Ref: &issues.Ref{Path: P{"start"}, Value: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)}}},
	{"too_big.ref", issues.Issue{Code: issues.TooBig, Path: P{"min"}, Input: 9, Origin: "integer", Maximum: "5", Inclusive: true,
		Ref: &issues.Ref{Path: P{"limits", "max"}, Value: 5}}},
	{"too_big.ref.exclusive", issues.Issue{Code: issues.TooBig, Path: P{"start"}, Input: 9, Origin: "integer", Maximum: "5",
		Ref: &issues.Ref{Path: P{"end"}, Value: 5}}},
	{"invalid_format.includes.ref", issues.Issue{Code: issues.InvalidFormat, Path: P{"greeting"}, Input: "hello", Format: "includes", Includes: "bob",
		Ref: &issues.Ref{Path: P{"name"}, Value: "bob"}}},
	{"invalid_format.excludes.ref", issues.Issue{Code: issues.InvalidFormat, Path: P{"password"}, Input: "bob123", Format: "excludes", Includes: "bob",
		Ref: &issues.Ref{Path: P{"username"}, Value: "bob"}}},
	{"invalid_format.excludes", issues.Issue{Code: issues.InvalidFormat, Path: P{"name"}, Input: "a/b", Format: "excludes", Includes: "/"}},
	{"invalid_format.includes_any", issues.Issue{Code: issues.InvalidFormat, Path: P{"password"}, Input: "abc", Format: "includes_any", Includes: "!@#"}},
	{"invalid_format.excludes_any", issues.Issue{Code: issues.InvalidFormat, Path: P{"name"}, Input: "a<b", Format: "excludes_any", Includes: "<>&"}},
	{"invalid_format.starts_not_with", issues.Issue{Code: issues.InvalidFormat, Path: P{"name"}, Input: "_x", Format: "starts_not_with", Prefix: "_"}},
	{"invalid_format.ends_not_with", issues.Issue{Code: issues.InvalidFormat, Path: P{"name"}, Input: "x.tmp", Format: "ends_not_with", Suffix: ".tmp"}},
	{"invalid_format.time_layout", issues.Issue{Code: issues.InvalidFormat, Path: P{"day"}, Input: "31/01/2026", Format: "time_layout", Layout: "2006-01-02"}},
	{"invalid_format.postcode", issues.Issue{Code: issues.InvalidFormat, Path: P{"zip"}, Input: "ABC", Format: "postcode", Country: "US"}},
	{"invalid_format.postcode.ref", issues.Issue{Code: issues.InvalidFormat, Path: P{"zip"}, Input: "ABC", Format: "postcode", Country: "US",
		Ref: &issues.Ref{Path: P{"country"}, Value: "US"}}},
	{"invalid_format.mimetype", issues.Issue{Code: issues.InvalidFormat, Path: P{"upload"}, Input: "/tmp/a.txt", Format: "mimetype", Param: "image/png"}},
	{"invalid_format.number_example", issues.Issue{Code: issues.InvalidFormat, Path: P{"port"}, Input: 0, Format: "port"}},
	{"custom.unknown_check", issues.Issue{Code: issues.Custom, Check: "no-such-check", Path: P{"x"}, Input: 1.0, Message: "Rejected by the server"}},

	{"value.redacted", issues.Issue{Code: issues.TooSmall, Path: P{"password"}, Input: "hunter2", Origin: "string", Minimum: "12", Inclusive: true}},
	{"value.redacted.unsized", issues.Issue{Code: issues.InvalidValue, Path: P{"auth", "apiKey"}, Input: 12345.0, Values: []any{"a", "b"}}},
	{"value.hidden", issues.Issue{Code: issues.InvalidType, Path: P{"session_token"}, Input: 12345.0, Expected: issues.TypeString}},
	{"value.nested_secret", issues.Issue{Code: issues.Custom, Path: P{"login"}, Input: map[string]any{"user": "bob", "password": "hunter2"}, Message: "Login rejected"}},
	{"value.control_chars", issues.Issue{Code: issues.InvalidFormat, Path: P{"email"}, Input: "a\nb\tc\x00d'e\u202e", Format: "email"}},
	{"value.path_quoted", issues.Issue{Code: issues.InvalidType, Path: P{"labels", "a.b", 0}, Input: 1.0, Expected: issues.TypeString}},
}

func longArray(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = float64(i)
	}
	return out
}

// formatCases adds an invalid_format case for every format the English
// catalog words, so that no format goes without a golden line.
func formatCases() []struct {
	name  string
	issue issues.Issue
} {
	var out []struct {
		name  string
		issue issues.Issue
	}
	for _, f := range catalogFormats() {
		out = append(out, struct {
			name  string
			issue issues.Issue
		}{"invalid_format." + f, issues.Issue{Code: issues.InvalidFormat, Path: P{"v"}, Input: "not valid", Format: f}})
	}
	return out
}

// deepElement nests an element in a union in an element, n times over, as a
// recursive schema does down to the adapters' depth limit.
func deepElement(n int) issues.Issue {
	is := issues.Issue{Code: issues.TooSmall, Input: "", Origin: "string", Minimum: "1", Inclusive: true}
	for range n {
		is = issues.Issue{Code: issues.InvalidUnion, Input: []any{""}, Branches: [][]issues.Issue{
			{{Code: issues.InvalidElement, Input: "", Key: 0, Origin: "array", Issues: []issues.Issue{is}}},
		}}
	}
	return issues.Issue{Code: issues.InvalidElement, Path: P{"tree"}, Input: "", Key: 0, Origin: "array", Issues: []issues.Issue{is}}
}

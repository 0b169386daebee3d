package jsonschematest

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/selfheal/selfheal/issues"
)

// Case is one schema, one invalid instance and the issues every adapter
// must report for it, in the issues' JSON form (order does not matter: the
// libraries walk objects in map order).
type Case struct {
	Name, Schema, Instance, Want string
}

// Table is the shared table: both adapters must give exactly these issues.
// Messages of invalid_format are not compared: v6 keeps the library's
// reason there, v5 has none to give.
var Table = []Case{
	{"type and required", `{"type":"object","required":["name","age"],"properties":{"name":{"type":"string"},"age":{"type":["integer","null"]}}}`,
		`{}`,
		`[{"code":"invalid_type","path":["age"],"expected":"integer|null","source":"jsonschema:required"},
		  {"code":"invalid_type","path":["name"],"expected":"string","source":"jsonschema:required"}]`},
	{"required through $ref", `{"properties":{"a":{"$ref":"#/$defs/s"}},"required":["a"],"$defs":{"s":{"type":"string"}}}`,
		`{}`,
		`[{"code":"invalid_type","path":["a"],"expected":"string","source":"jsonschema:required"}]`},
	{"wrong type", `{"properties":{"n":{"type":"integer"}}}`, `{"n":"42"}`,
		`[{"code":"invalid_type","path":["n"],"input":"42","expected":"integer","source":"jsonschema:type"}]`},
	{"numbers as written", `{"properties":{"a":{"type":"number","minimum":0.1},"b":{"type":"integer","exclusiveMaximum":1e9},"c":{"multipleOf":0.01},"d":{"maximum":18}}}`,
		`{"a":0.05,"b":1000000000,"c":0.125,"d":19}`,
		`[{"code":"too_small","path":["a"],"input":0.05,"origin":"number","minimum":0.1,"inclusive":true,"source":"jsonschema:minimum"},
		  {"code":"too_big","path":["b"],"input":1000000000,"origin":"integer","maximum":1e9,"inclusive":false,"source":"jsonschema:exclusiveMaximum"},
		  {"code":"not_multiple_of","path":["c"],"input":0.125,"divisor":0.01,"source":"jsonschema:multipleOf"},
		  {"code":"too_big","path":["d"],"input":19,"origin":"number","maximum":18,"inclusive":true,"source":"jsonschema:maximum"}]`},
	// multipleOf carries the least and greatest multiples the field's
	// other bounds allow (exclusiveMaximum 20 allows 18 at most), so that
	// the multiples a line suggests pass them all.
	{"multipleOf within bounds", `{"properties":{"a":{"type":"integer","multipleOf":2,"maximum":20},"b":{"multipleOf":0.5,"exclusiveMinimum":0,"exclusiveMaximum":20},"c":{"multipleOf":5,"minimum":3}}}`,
		`{"a":25,"b":19.3,"c":1}`,
		`[{"code":"too_big","path":["a"],"input":25,"origin":"integer","maximum":20,"inclusive":true,"source":"jsonschema:maximum"},
		  {"code":"not_multiple_of","path":["a"],"input":25,"maximum":20,"inclusive":true,"divisor":2,"source":"jsonschema:multipleOf"},
		  {"code":"not_multiple_of","path":["b"],"input":19.3,"minimum":0.5,"maximum":19.5,"inclusive":true,"divisor":0.5,"source":"jsonschema:multipleOf"},
		  {"code":"too_small","path":["c"],"input":1,"origin":"number","minimum":3,"inclusive":true,"source":"jsonschema:minimum"},
		  {"code":"not_multiple_of","path":["c"],"input":1,"minimum":5,"inclusive":true,"divisor":5,"source":"jsonschema:multipleOf"}]`},
	{"sizes", `{"properties":{"s":{"minLength":3},"code":{"minLength":4,"maxLength":4},"l":{"maxItems":1},"o":{"minProperties":2}}}`,
		`{"s":"ab","code":"abcde","l":[1,2],"o":{"x":1}}`,
		`[{"code":"too_big","path":["code"],"input":"abcde","origin":"string","maximum":4,"inclusive":true,"exact":true,"source":"jsonschema:maxLength"},
		  {"code":"too_big","path":["l"],"input":[1,2],"origin":"array","maximum":1,"inclusive":true,"source":"jsonschema:maxItems"},
		  {"code":"too_small","path":["o"],"input":{"x":1},"origin":"object","minimum":2,"inclusive":true,"source":"jsonschema:minProperties"},
		  {"code":"too_small","path":["s"],"input":"ab","origin":"string","minimum":3,"inclusive":true,"source":"jsonschema:minLength"}]`},
	{"enum, const, pattern, format", `{"properties":{"e":{"enum":["a","b"]},"c":{"const":1},"p":{"pattern":"^[a-z]+$"},"f":{"format":"email"}}}`,
		`{"e":"c","c":2,"p":"A1","f":"nope"}`,
		`[{"code":"invalid_value","path":["c"],"input":2,"values":[1],"source":"jsonschema:const"},
		  {"code":"invalid_value","path":["e"],"input":"c","values":["a","b"],"source":"jsonschema:enum"},
		  {"code":"invalid_format","path":["f"],"input":"nope","format":"email","source":"jsonschema:format"},
		  {"code":"invalid_format","path":["p"],"input":"A1","format":"regex","pattern":"^[a-z]+$","source":"jsonschema:pattern"}]`},
	{"additional properties", `{"properties":{"name":{},"age":{}},"additionalProperties":false}`,
		`{"name":"x","nmae":"y","zz":1}`,
		`[{"code":"unrecognized_keys","path":[],"input":{"name":"x","nmae":"y","zz":1},"keys":["nmae","zz"],"allowed":["age","name"],"source":"jsonschema:additionalProperties"}]`},
	{"unevaluated properties", `{"allOf":[{"properties":{"a":{}}}],"properties":{"b":{}},"unevaluatedProperties":false}`,
		`{"a":1,"b":2,"c":3,"d":4}`,
		`[{"code":"unrecognized_keys","path":[],"input":{"a":1,"b":2,"c":3,"d":4},"keys":["c","d"],"allowed":["a","b"],"source":"jsonschema:unevaluatedProperties"}]`},
	{"nested in arrays", `{"properties":{"items":{"type":"array","items":{"type":"object","required":["id"],"properties":{"id":{"type":"integer","minimum":1}}}}}}`,
		`{"items":[{"id":0},{}]}`,
		`[{"code":"too_small","path":["items",0,"id"],"input":0,"origin":"integer","minimum":1,"inclusive":true,"source":"jsonschema:minimum"},
		  {"code":"invalid_type","path":["items",1,"id"],"expected":"integer","source":"jsonschema:required"}]`},
	{"anyOf", `{"properties":{"v":{"anyOf":[{"type":"string"},{"type":"integer","minimum":10}]}}}`,
		`{"v":5}`,
		`[{"code":"invalid_union","path":["v"],"input":5,"errors":[
		   [{"code":"invalid_type","path":["v"],"input":5,"expected":"string","source":"jsonschema:type"}],
		   [{"code":"too_small","path":["v"],"input":5,"origin":"integer","minimum":10,"inclusive":true,"source":"jsonschema:minimum"}]],"source":"jsonschema:anyOf"}]`},
	{"oneOf none", `{"oneOf":[{"properties":{"kind":{"const":"a"}},"required":["kind"]},{"properties":{"kind":{"const":"b"},"n":{"type":"integer"}},"required":["kind","n"]}]}`,
		`{"kind":"b"}`,
		`[{"code":"invalid_union","path":[],"input":{"kind":"b"},"errors":[
		   [{"code":"invalid_value","path":["kind"],"input":"b","values":["a"],"source":"jsonschema:const"}],
		   [{"code":"invalid_type","path":["n"],"expected":"integer","source":"jsonschema:required"}]],"source":"jsonschema:oneOf"}]`},
	{"oneOf several", `{"oneOf":[{"type":"integer"},{"minimum":2}]}`, `3`,
		`[{"code":"custom","path":[],"input":3,"check":"one_of","source":"jsonschema:oneOf"}]`},
	{"if then else", `{"if":{"properties":{"kind":{"const":"card"}}},"then":{"required":["number"]},"else":{"required":["iban"]}}`,
		`{"kind":"card"}`,
		`[{"code":"invalid_type","path":["number"],"source":"jsonschema:required"}]`},
	{"dependentRequired", `{"dependentRequired":{"card":["cvc","expiry"]}}`, `{"card":"4242"}`,
		`[{"code":"invalid_type","path":["cvc"],"when":{"op":"present","fields":[["card"]]},"source":"jsonschema:dependentRequired"},
		  {"code":"invalid_type","path":["expiry"],"when":{"op":"present","fields":[["card"]]},"source":"jsonschema:dependentRequired"}]`},
	{"propertyNames", `{"propertyNames":{"pattern":"^[a-z]+$","maxLength":3}}`, `{"ok":1,"Bad":2}`,
		`[{"code":"invalid_key","path":[],"input":"Bad","origin":"object","issues":[
		   {"code":"invalid_format","path":[],"input":"Bad","format":"regex","pattern":"^[a-z]+$","source":"jsonschema:pattern"}],"key":"Bad","source":"jsonschema:propertyNames"}]`},
	{"propertyNames false", `{"propertyNames":false}`, `{"a":1}`,
		`[{"code":"unrecognized_keys","path":[],"input":{"a":1},"keys":["a"],"source":"jsonschema:propertyNames"}]`},
	{"uniqueItems", `{"uniqueItems":true}`, `[1,2,1]`,
		`[{"code":"custom","path":[],"input":[1,2,1],"values":[1],"check":"unique","source":"jsonschema:uniqueItems"}]`},
	{"not", `{"properties":{"role":{"not":{"const":"admin"}}}}`, `{"role":"admin"}`,
		`[{"code":"custom","path":["role"],"input":"admin","check":"not","source":"jsonschema:not"}]`},
	{"false property", `{"properties":{"legacy":false}}`, `{"legacy":1}`,
		`[{"code":"custom","path":["legacy"],"input":1,"check":"excluded","source":"jsonschema:properties"}]`},
	{"false schema at root", `false`, `1`,
		`[{"code":"custom","path":[],"input":1,"check":"never","source":"jsonschema:false"}]`},
	{"items false after prefix", `{"prefixItems":[{},{}],"items":false}`, `[1,2,3,4]`,
		`[{"code":"too_big","path":[],"input":[1,2,3,4],"origin":"array","maximum":2,"inclusive":true,"source":"jsonschema:items"}]`},
	{"contains", `{"contains":{"type":"integer"},"minContains":2,"maxContains":3}`, `[1,"a"]`,
		`[{"code":"custom","path":[],"input":[1,"a"],"origin":"array","minimum":2,"maximum":3,"inclusive":true,"check":"contains","source":"jsonschema:minContains"}]`},
	{"unevaluated after a branch that did not apply", `{"if":{"required":["kind"]},"then":{"properties":{"kind":{},"extra":{}}},"properties":{"name":{}},"unevaluatedProperties":false}`,
		`{"name":"x","extra":1}`,
		`[{"code":"unrecognized_keys","path":[],"input":{"name":"x","extra":1},"keys":["extra"],"allowed":["kind","name"],"source":"jsonschema:unevaluatedProperties"}]`},
	{"contains exactly", `{"contains":{"const":1},"minContains":1,"maxContains":1}`, `[1,1]`,
		`[{"code":"custom","path":[],"input":[1,1],"origin":"array","minimum":1,"maximum":1,"inclusive":true,"check":"contains","source":"jsonschema:maxContains"}]`},
	{"contains none", `{"contains":{"type":"integer"}}`, `["a"]`,
		`[{"code":"custom","path":[],"input":["a"],"origin":"array","minimum":1,"inclusive":true,"check":"contains","source":"jsonschema:contains"}]`},
	{"all failures of one value", `{"type":"string","minLength":5,"pattern":"^[0-9]+$"}`, `"ab"`,
		`[{"code":"invalid_format","path":[],"input":"ab","format":"regex","pattern":"^[0-9]+$","source":"jsonschema:pattern"},
		  {"code":"too_small","path":[],"input":"ab","origin":"string","minimum":5,"inclusive":true,"source":"jsonschema:minLength"}]`},
}

// Draft7Table holds cases of draft 7's own keywords, compiled as draft 7.
var Draft7Table = []Case{
	{"dependencies", `{"dependencies":{"card":["cvc"]}}`, `{"card":"4242"}`,
		`[{"code":"invalid_type","path":["cvc"],"when":{"op":"present","fields":[["card"]]},"source":"jsonschema:dependencies"}]`},
	{"additionalItems", `{"items":[{},{}],"additionalItems":false}`, `[1,2,3]`,
		`[{"code":"too_big","path":[],"input":[1,2,3],"origin":"array","maximum":2,"inclusive":true,"source":"jsonschema:additionalItems"}]`},
	{"items false", `{"items":false}`, `[1]`,
		`[{"code":"too_big","path":[],"input":[1],"origin":"array","maximum":0,"inclusive":true,"source":"jsonschema:items"}]`},
}

// RunTable compiles each case with compile (draft "2020-12" or "7") and
// compares the issues with the case's.
func RunTable(t *testing.T, draft string, table []Case, compile Compiler) {
	for _, c := range table {
		t.Run(c.Name, func(t *testing.T) {
			validate, err := compile([]byte(c.Schema), Config{Draft: draft, Formats: true, Remote: Remote})
			if err != nil {
				t.Fatal(err)
			}
			dec := json.NewDecoder(bytes.NewReader([]byte(c.Instance)))
			dec.UseNumber()
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatal(err)
			}
			got := Canonical(validate(v))
			var want issues.List
			if err := json.Unmarshal([]byte(c.Want), &want); err != nil {
				t.Fatal(err)
			}
			if w := Canonical(want); got != w {
				t.Errorf("issues differ\n got: %s\nwant: %s", got, w)
			}
			if msg := CheckRendered(validate(v)); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// Canonical returns the JSON form of list sorted by path, code and source,
// without the messages of invalid_format, for comparing adapters.
func Canonical(list issues.List) string {
	var norm func(l []issues.Issue) []issues.Issue
	norm = func(l []issues.Issue) []issues.Issue {
		out := slices.Clone(l)
		for i := range out {
			if out[i].Code == issues.InvalidFormat {
				out[i].Message = ""
			}
			out[i].Issues = norm(out[i].Issues)
			for j := range out[i].Branches {
				out[i].Branches[j] = norm(out[i].Branches[j])
			}
		}
		slices.SortStableFunc(out, func(a, b issues.Issue) int {
			if c := a.Path.Compare(b.Path); c != 0 {
				return c
			}
			if a.Code != b.Code {
				if a.Code < b.Code {
					return -1
				}
				return 1
			}
			switch {
			case a.Source < b.Source:
				return -1
			case a.Source > b.Source:
				return 1
			}
			return 0
		})
		return out
	}
	b, err := json.Marshal(norm(list))
	if err != nil {
		return "marshal: " + err.Error()
	}
	var v any
	_ = json.Unmarshal(b, &v)
	b, _ = json.Marshal(v)
	return string(b)
}

package contract

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/golden"
)

// line writes a change with everything a test checks, on one line.
func line(c Change) string {
	s := fmt.Sprintf("%s %s: %s", c.Severity, c.Field, c.Description)
	if c.Before != "" || c.After != "" {
		s += fmt.Sprintf(" [%s → %s]", c.Before, c.After)
	}
	return s + " @" + c.Location
}

func mustTool(t testing.TB, name, desc, in, out string) Tool {
	t.Helper()
	var o any
	if out != "" {
		o = json.RawMessage(out)
	}
	tool, err := NewTool(name, desc, json.RawMessage(in), o)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func mustLock(t testing.TB, tools ...Tool) *Lock {
	t.Helper()
	l, err := NewLock(tools)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// diffInput diffs two input schemas of one tool "t".
func diffInput(t *testing.T, old, new string) []string {
	t.Helper()
	return diffTools(t, mustTool(t, "t", "", old, ""), mustTool(t, "t", "", new, ""))
}

func diffTools(t *testing.T, old, new Tool) []string {
	t.Helper()
	var got []string
	for _, c := range Diff(mustLock(t, old), mustLock(t, new)) {
		if c.Tool != "t" {
			t.Errorf("change for tool %q", c.Tool)
		}
		got = append(got, line(c))
	}
	return got
}

func check(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// obj wraps property schemas into an object schema; req lists required names.
func obj(props string, req ...string) string {
	r, _ := json.Marshal(req)
	if req == nil {
		r = []byte("[]")
	}
	return `{"type":"object","properties":{` + props + `},"required":` + string(r) + `}`
}

// TestDiffInput covers each kind of input-schema change with real before and
// after schemas and its literal expected changes.
func TestDiffInput(t *testing.T) {
	str := `"s":{"type":"string"}`
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"identical", obj(str, "s"), obj(str, "s"), nil},
		{"key order and number spelling", `{"type":"object","properties":{"n":{"minimum":1.0,"type":"number"}}}`, `{"properties":{"n":{"type":"number","minimum":1}},"type":"object"}`, nil},
		{"required order", obj(`"a":{},"b":{}`, "a", "b"), obj(`"a":{},"b":{}`, "b", "a", "b"), nil},

		// properties and required
		{"property removed", obj(str + `,"x":{"type":"integer"}`), obj(str), []string{
			`BREAKING x: Property removed [{"type":"integer"} → ] @/inputSchema/properties/x`}},
		{"required property removed", obj(str+`,"x":{"type":"integer"}`, "x"), obj(str), []string{
			`BREAKING x: Property removed [{"type":"integer"} → ] @/inputSchema/properties/x`}},
		{"optional property added", obj(str), obj(str + `,"x":{"type":"integer"}`), []string{
			`SAFE x: New optional property [ → {"type":"integer"}] @/inputSchema/properties/x`}},
		{"required property added", obj(str), obj(str+`,"x":{"type":"integer"}`, "x"), []string{
			`BREAKING x: New required property [ → {"type":"integer"}] @/inputSchema/properties/x`}},
		{"newly required", obj(str), obj(str, "s"), []string{
			`BREAKING s: Now required @/inputSchema/required`}},
		{"no longer required", obj(str, "s"), obj(str), []string{
			`SAFE s: No longer required @/inputSchema/required`}},
		{"odd property name", obj(`"a.b":{"type":"string"}`), obj(`"a.b":{"type":"integer"}`), []string{
			`BREAKING ["a.b"]: Type changed from string to integer ["string" → "integer"] @/inputSchema/properties/a.b/type`}},
		{"slash in property name", obj(`"a/b~c":{}`), obj(``), []string{
			`BREAKING ["a/b~c"]: Property removed [{} → ] @/inputSchema/properties/a~1b~0c`}},

		// type
		{"type narrowed", obj(`"n":{"type":"number"}`), obj(`"n":{"type":"integer"}`), []string{
			`BREAKING n: Type narrowed from number to integer ["number" → "integer"] @/inputSchema/properties/n/type`}},
		{"type widened", obj(`"n":{"type":"integer"}`), obj(`"n":{"type":["integer","string"]}`), []string{
			`SAFE n: Type widened from integer to integer or string ["integer" → ["integer","string"]] @/inputSchema/properties/n/type`}},
		{"type widened to null", obj(`"n":{"type":"string"}`), obj(`"n":{"type":["null","string"]}`), []string{
			`RISKY n: Type widened from string to null or string: null is now accepted ["string" → ["null","string"]] @/inputSchema/properties/n/type`}},
		{"type changed", obj(`"n":{"type":"string"}`), obj(`"n":{"type":"integer"}`), []string{
			`BREAKING n: Type changed from string to integer ["string" → "integer"] @/inputSchema/properties/n/type`}},
		{"type added", obj(`"n":{}`), obj(`"n":{"type":"boolean"}`), []string{
			`BREAKING n: Type narrowed from any type to boolean [ → "boolean"] @/inputSchema/properties/n/type`}},
		{"type removed", obj(`"n":{"type":"boolean"}`), obj(`"n":{}`), []string{
			`RISKY n: Type widened from boolean to any type: null is now accepted ["boolean" → ] @/inputSchema/properties/n/type`}},
		{"type spelled differently", obj(`"n":{"type":["number","integer"]}`), obj(`"n":{"type":"number"}`), []string{
			`COSMETIC n: Type written differently (integer or number and number accept the same values) [["integer","number"] → "number"] @/inputSchema/properties/n/type`}},

		// enum and const
		{"enum value removed and added", obj(`"st":{"enum":["open","paid","void"]}`), obj(`"st":{"enum":["open","void","draft"]}`), []string{
			`BREAKING st: Value "paid" is no longer accepted [["open","paid","void"] → ["open","void","draft"]] @/inputSchema/properties/st/enum`,
			`SAFE st: Value "draft" is now accepted [["open","paid","void"] → ["open","void","draft"]] @/inputSchema/properties/st/enum`}},
		{"enum reordered", obj(`"st":{"enum":[1,2]}`), obj(`"st":{"enum":[2,1.0]}`), []string{
			`COSMETIC st: Allowed values reordered [[1,2] → [2,1]] @/inputSchema/properties/st/enum`}},
		{"enum added", obj(`"st":{"type":"string"}`), obj(`"st":{"type":"string","enum":["a","b"]}`), []string{
			`BREAKING st: Now restricted to "a", "b" [ → ["a","b"]] @/inputSchema/properties/st/enum`}},
		{"enum removed", obj(`"st":{"enum":["a","b"]}`), obj(`"st":{}`), []string{
			`SAFE st: No longer restricted to a list of values [["a","b"] → ] @/inputSchema/properties/st/enum`}},
		{"many enum values removed", obj(`"d":{"enum":[1,2,3,4,5,6,7,8]}`), obj(`"d":{"enum":[8]}`), []string{
			`BREAKING d: Values 1, 2, 3, 4, 5, and 2 more are no longer accepted [[1,2,3,4,5,6,7,8] → [8]] @/inputSchema/properties/d/enum`}},
		{"const changed", obj(`"v":{"const":"v1"}`), obj(`"v":{"const":"v2"}`), []string{
			`BREAKING v: Required value changed from "v1" to "v2" ["v1" → "v2"] @/inputSchema/properties/v/const`}},
		{"const added", obj(`"v":{}`), obj(`"v":{"const":null}`), []string{
			`BREAKING v: Now must be exactly null [ → null] @/inputSchema/properties/v/const`}},
		{"const removed", obj(`"v":{"const":2}`), obj(`"v":{}`), []string{
			`SAFE v: No longer restricted to 2 [2 → ] @/inputSchema/properties/v/const`}},

		// numeric bounds
		{"minimum raised", obj(`"amount":{"type":"number","minimum":0}`), obj(`"amount":{"type":"number","minimum":1}`), []string{
			`BREAKING amount: Minimum raised from 0 to 1 [0 → 1] @/inputSchema/properties/amount/minimum`}},
		{"maximum lowered", obj(`"q":{"maximum":100}`), obj(`"q":{"maximum":99.5}`), []string{
			`BREAKING q: Maximum lowered from 100 to 99.5 [100 → 99.5] @/inputSchema/properties/q/maximum`}},
		{"maximum added", obj(`"q":{}`), obj(`"q":{"maximum":10}`), []string{
			`BREAKING q: Maximum of 10 added [ → 10] @/inputSchema/properties/q/maximum`}},
		{"maximum raised", obj(`"q":{"maximum":10}`), obj(`"q":{"maximum":1e3}`), []string{
			`SAFE q: Maximum raised from 10 to 1000 [10 → 1000] @/inputSchema/properties/q/maximum`}},
		{"maximum removed on money stays safe", obj(`"amount":{"type":"number","minimum":1,"maximum":500}`), obj(`"amount":{"type":"number","minimum":1}`), []string{
			`SAFE amount: Maximum of 500 removed [500 → ] @/inputSchema/properties/amount/maximum`}},
		{"minimum lowered within positives", obj(`"p":{"minimum":10}`), obj(`"p":{"minimum":1}`), []string{
			`SAFE p: Minimum lowered from 10 to 1 [10 → 1] @/inputSchema/properties/p/minimum`}},
		{"minimum lowered to zero", obj(`"p":{"minimum":1}`), obj(`"p":{"minimum":0}`), []string{
			`RISKY p: Minimum lowered from 1 to 0: zero now accepted [1 → 0] @/inputSchema/properties/p/minimum`}},
		{"minimum removed from a positive amount", obj(`"amount":{"type":"number","exclusiveMinimum":0}`), obj(`"amount":{"type":"number"}`), []string{
			`RISKY amount: Exclusive minimum of 0 removed: negative numbers and zero now accepted [0 → ] @/inputSchema/properties/amount/exclusiveMinimum`}},
		{"maximum crosses zero", obj(`"offset":{"maximum":-1}`), obj(`"offset":{"maximum":5}`), []string{
			`RISKY offset: Maximum raised from -1 to 5: zero and positive numbers now accepted [-1 → 5] @/inputSchema/properties/offset/maximum`}},
		{"exclusive minimum tightened", obj(`"r":{"exclusiveMinimum":0}`), obj(`"r":{"exclusiveMinimum":0.5}`), []string{
			`BREAKING r: Exclusive minimum raised from 0 to 0.5 [0 → 0.5] @/inputSchema/properties/r/exclusiveMinimum`}},
		{"exclusive maximum loosened", obj(`"r":{"exclusiveMaximum":1}`), obj(`"r":{"exclusiveMaximum":2}`), []string{
			`SAFE r: Exclusive maximum raised from 1 to 2 [1 → 2] @/inputSchema/properties/r/exclusiveMaximum`}},
		{"minimum becomes exclusive", obj(`"r":{"minimum":0}`), obj(`"r":{"exclusiveMinimum":0}`), []string{
			`BREAKING r: Exclusive minimum of 0 added [ → 0] @/inputSchema/properties/r/exclusiveMinimum`,
			`SAFE r: Minimum of 0 removed [0 → ] @/inputSchema/properties/r/minimum`}},
		{"draft 4 exclusive minimum", obj(`"r":{"minimum":0}`), obj(`"r":{"minimum":0,"exclusiveMinimum":true}`), []string{
			`BREAKING r: Exclusive minimum: the bound itself is no longer accepted [ → true] @/inputSchema/properties/r/exclusiveMinimum`}},
		{"multipleOf coarser", obj(`"c":{"multipleOf":5}`), obj(`"c":{"multipleOf":10}`), []string{
			`BREAKING c: Multiple of 5 changed to multiple of 10 [5 → 10] @/inputSchema/properties/c/multipleOf`}},
		{"multipleOf finer", obj(`"c":{"multipleOf":0.01}`), obj(`"c":{"multipleOf":0.001}`), []string{
			`SAFE c: Multiple of 0.01 changed to multiple of 0.001 [0.01 → 0.001] @/inputSchema/properties/c/multipleOf`}},
		{"multipleOf unrelated", obj(`"c":{"multipleOf":2}`), obj(`"c":{"multipleOf":3}`), []string{
			`BREAKING c: Multiple of 2 changed to multiple of 3 [2 → 3] @/inputSchema/properties/c/multipleOf`}},
		{"multipleOf added", obj(`"c":{}`), obj(`"c":{"multipleOf":2}`), []string{
			`BREAKING c: Must now be a multiple of 2 [ → 2] @/inputSchema/properties/c/multipleOf`}},
		{"multipleOf removed", obj(`"c":{"multipleOf":2}`), obj(`"c":{}`), []string{
			`SAFE c: No longer needs to be a multiple of 2 [2 → ] @/inputSchema/properties/c/multipleOf`}},

		// string, array and object sizes
		{"minLength raised", obj(`"name":{"type":"string","minLength":1}`), obj(`"name":{"type":"string","minLength":2}`), []string{
			`BREAKING name: Minimum length raised from 1 to 2 [1 → 2] @/inputSchema/properties/name/minLength`}},
		{"maxLength lowered", obj(`"name":{"maxLength":100}`), obj(`"name":{"maxLength":50}`), []string{
			`BREAKING name: Maximum length lowered from 100 to 50 [100 → 50] @/inputSchema/properties/name/maxLength`}},
		{"maxLength raised", obj(`"name":{"maxLength":50}`), obj(`"name":{"maxLength":100}`), []string{
			`SAFE name: Maximum length raised from 50 to 100 [50 → 100] @/inputSchema/properties/name/maxLength`}},
		{"minLength dropped to zero", obj(`"name":{"minLength":1}`), obj(`"name":{"minLength":0}`), []string{
			`RISKY name: Minimum length lowered from 1 to 0: empty strings are now accepted [1 → 0] @/inputSchema/properties/name/minLength`}},
		{"minItems removed", obj(`"tags":{"type":"array","minItems":1}`), obj(`"tags":{"type":"array"}`), []string{
			`RISKY tags: Minimum number of items of 1 removed: empty arrays are now accepted [1 → ] @/inputSchema/properties/tags/minItems`}},
		{"maxItems lowered", obj(`"tags":{"maxItems":10}`), obj(`"tags":{"maxItems":3}`), []string{
			`BREAKING tags: Maximum number of items lowered from 10 to 3 [10 → 3] @/inputSchema/properties/tags/maxItems`}},
		{"minProperties added", obj(`"m":{"type":"object"}`), obj(`"m":{"type":"object","minProperties":1}`), []string{
			`BREAKING m: Minimum number of properties of 1 added [ → 1] @/inputSchema/properties/m/minProperties`}},
		{"uniqueItems", obj(`"tags":{"type":"array"}`), obj(`"tags":{"type":"array","uniqueItems":true}`), []string{
			`BREAKING tags: Items must now be unique [ → true] @/inputSchema/properties/tags/uniqueItems`}},

		// pattern and format
		{"pattern added", obj(`"id":{"type":"string"}`), obj(`"id":{"type":"string","pattern":"^inv_"}`), []string{
			`BREAKING id: Pattern "^inv_" added [ → "^inv_"] @/inputSchema/properties/id/pattern`}},
		{"pattern changed", obj(`"id":{"pattern":"^inv_"}`), obj(`"id":{"pattern":"^in_"}`), []string{
			`BREAKING id: Pattern changed from "^inv_" to "^in_" ["^inv_" → "^in_"] @/inputSchema/properties/id/pattern`}},
		{"pattern removed", obj(`"id":{"pattern":"^inv_"}`), obj(`"id":{}`), []string{
			`SAFE id: Pattern "^inv_" removed ["^inv_" → ] @/inputSchema/properties/id/pattern`}},
		{"format added", obj(`"e":{"type":"string"}`), obj(`"e":{"type":"string","format":"email"}`), []string{
			`BREAKING e: Format "email" added [ → "email"] @/inputSchema/properties/e/format`}},
		{"format changed", obj(`"e":{"format":"date"}`), obj(`"e":{"format":"date-time"}`), []string{
			`BREAKING e: Format changed from "date" to "date-time" ["date" → "date-time"] @/inputSchema/properties/e/format`}},
		{"format removed", obj(`"e":{"format":"uuid"}`), obj(`"e":{}`), []string{
			`SAFE e: Format "uuid" removed ["uuid" → ] @/inputSchema/properties/e/format`}},

		// additionalProperties
		{"closed", obj(str), `{"type":"object","properties":{` + str + `},"additionalProperties":false}`, []string{
			`BREAKING (root): Properties not listed are no longer accepted [ → false] @/inputSchema/additionalProperties`}},
		{"opened", `{"type":"object","additionalProperties":false}`, `{"type":"object","additionalProperties":true}`, []string{
			`SAFE (root): Properties not listed are now accepted [false → true] @/inputSchema/additionalProperties`}},
		{"open written differently", `{"type":"object","additionalProperties":{}}`, `{"type":"object"}`, []string{
			`COSMETIC (root): Written differently, same meaning [{} → ] @/inputSchema/additionalProperties`}},
		{"constrained", `{"type":"object"}`, `{"type":"object","additionalProperties":{"type":"string"}}`, []string{
			`BREAKING (root): Properties not listed must now match a schema [ → {"type":"string"}] @/inputSchema/additionalProperties`}},
		{"map values narrowed", obj(`"labels":{"type":"object","additionalProperties":{"type":["string","number"]}}`), obj(`"labels":{"type":"object","additionalProperties":{"type":"string"}}`), []string{
			`BREAKING labels[*]: Type narrowed from number or string to string [["number","string"] → "string"] @/inputSchema/properties/labels/additionalProperties/type`}},

		// defaults, descriptions, annotations
		{"default changed", obj(`"limit":{"type":"integer","default":10}`), obj(`"limit":{"type":"integer","default":50}`), []string{
			`RISKY limit: Default changed from 10 to 50 [10 → 50] @/inputSchema/properties/limit/default`}},
		{"default added", obj(`"limit":{}`), obj(`"limit":{"default":null}`), []string{
			`RISKY limit: Default null added [ → null] @/inputSchema/properties/limit/default`}},
		{"default removed", obj(`"limit":{"default":"x"}`), obj(`"limit":{}`), []string{
			`RISKY limit: Default "x" removed ["x" → ] @/inputSchema/properties/limit/default`}},
		{"description of a required property", obj(`"amount":{"type":"integer","description":"Amount in dollars"}`, "amount"), obj(`"amount":{"type":"integer","description":"Amount in cents"}`, "amount"), []string{
			`COSMETIC amount: Description changed ["Amount in dollars" → "Amount in cents"] @/inputSchema/properties/amount/description`}},
		{"title and examples", obj(`"a":{"title":"A","examples":[1]}`), obj(`"a":{"title":"B","examples":[2]}`), []string{
			`COSMETIC a: Annotation "examples" changed [[1] → [2]] @/inputSchema/properties/a/examples`,
			`COSMETIC a: Title changed ["A" → "B"] @/inputSchema/properties/a/title`}},
		{"deprecated", obj(`"old":{}`), obj(`"old":{"deprecated":true}`), []string{
			`RISKY old: Deprecated [ → true] @/inputSchema/properties/old/deprecated`}},
		{"unknown keyword", obj(`"a":{"x-ui":"wide"}`), obj(`"a":{"x-ui":"narrow"}`), []string{
			`COSMETIC a: Unknown keyword "x-ui" changed (validators ignore it) ["wide" → "narrow"] @/inputSchema/properties/a/x-ui`}},

		// nesting
		{"nested object", obj(`"address":` + obj(`"zip":{"type":"string","maxLength":10}`, "zip")), obj(`"address":` + obj(`"zip":{"type":"string","maxLength":5},"city":{"type":"string"}`, "zip", "city")), []string{
			`BREAKING address.city: New required property [ → {"type":"string"}] @/inputSchema/properties/address/properties/city`,
			`BREAKING address.zip: Maximum length lowered from 10 to 5 [10 → 5] @/inputSchema/properties/address/properties/zip/maxLength`}},
		{"array items", obj(`"items":{"type":"array","items":` + obj(`"sku":{"type":"string"}`, "sku") + `}`), obj(`"items":{"type":"array","items":` + obj(`"sku":{"type":"string"},"qty":{"type":"integer","minimum":1}`, "sku", "qty") + `}`), []string{
			`BREAKING items[*].qty: New required property [ → {"minimum":1,"type":"integer"}] @/inputSchema/properties/items/items/properties/qty`}},
		{"tuple", obj(`"pt":{"prefixItems":[{"type":"number"},{"type":"number"}]}`), obj(`"pt":{"prefixItems":[{"type":"integer"}]}`), []string{
			`BREAKING pt[0]: Type narrowed from number to integer ["number" → "integer"] @/inputSchema/properties/pt/prefixItems/0/type`,
			`SAFE pt[1]: Item 1 no longer constrained [{"type":"number"} → ] @/inputSchema/properties/pt/prefixItems/1`}},
		{"false schema", obj(`"x":true`), obj(`"x":false`), []string{
			`BREAKING x: No longer accepts any value [{} → false] @/inputSchema/properties/x`}},

		// combinators
		{"anyOf alternative removed, matched by structure", obj(`"id":{"anyOf":[{"type":"string"},{"type":"integer"}]}`), obj(`"id":{"anyOf":[{"type":"integer"}]}`), []string{
			`BREAKING id: Alternative 1 of anyOf (string) removed [{"type":"string"} → ] @/inputSchema/properties/id/anyOf/0`}},
		{"anyOf alternative added", obj(`"id":{"anyOf":[{"type":"string"}]}`), obj(`"id":{"anyOf":[{"type":"integer"},{"type":"string"}]}`), []string{
			`SAFE id: Alternative 1 of anyOf (integer) added [ → {"type":"integer"}] @/inputSchema/properties/id/anyOf/0`}},
		{"anyOf alternative changed", obj(`"id":{"anyOf":[{"type":"string","maxLength":5},{"type":"integer"}]}`), obj(`"id":{"anyOf":[{"type":"integer"},{"type":"string","maxLength":3}]}`), []string{
			`BREAKING id: In alternative 2 of anyOf: Maximum length lowered from 5 to 3 [5 → 3] @/inputSchema/properties/id/anyOf/1/maxLength`}},
		{"oneOf alternative added", obj(`"p":{"oneOf":[{"type":"string"}]}`), obj(`"p":{"oneOf":[{"type":"string"},{"const":"none"}]}`), []string{
			`RISKY p: Alternative 2 of oneOf ("none") added: a value matching two alternatives is rejected [ → {"const":"none"}] @/inputSchema/properties/p/oneOf/1`}},
		{"alternative with an unknown type and a remote ref", obj(`"p":{"anyOf":[{"type":"string"}]}`), obj(`"p":{"anyOf":[{"type":"string"},{"type":"a\nb"},{"$ref":"x\ny.json"}]}`), []string{
			`SAFE p: Alternative 2 of anyOf ("a\nb") added [ → {"type":"a\nb"}] @/inputSchema/properties/p/anyOf/1`,
			`SAFE p: Alternative 3 of anyOf ("x\ny.json") added [ → {"$ref":"x\ny.json"}] @/inputSchema/properties/p/anyOf/2`}},
		{"allOf member added", obj(`"p":{"allOf":[{"type":"string"}]}`), obj(`"p":{"allOf":[{"type":"string"},{"minLength":2}]}`), []string{
			`BREAKING p: Member 2 of allOf (a schema) added [ → {"minLength":2}] @/inputSchema/properties/p/allOf/1`}},
		{"anyOf added", obj(`"p":{}`), obj(`"p":{"anyOf":[{"type":"string"}]}`), []string{
			`BREAKING p: Constraint "anyOf" added [ → [{"type":"string"}]] @/inputSchema/properties/p/anyOf`}},

		// $ref
		{"local refs are compared inlined", `{"type":"object","$defs":{"Money":{"type":"integer","minimum":0}},"properties":{"price":{"$ref":"#/$defs/Money"}}}`, `{"type":"object","$defs":{"Money":{"type":"integer","minimum":1}},"properties":{"price":{"$ref":"#/$defs/Money","description":"in cents"}}}`, []string{
			`BREAKING price: Minimum raised from 0 to 1 [0 → 1] @/inputSchema/properties/price/minimum`,
			`COSMETIC price: Description changed [ → "in cents"] @/inputSchema/properties/price/description`}},
		{"ref inlined equals the same schema written out", `{"type":"object","definitions":{"S":{"type":"string"}},"properties":{"a":{"$ref":"#/definitions/S"}}}`, `{"type":"object","properties":{"a":{"type":"string"}}}`, nil},
		{"recursive refs stay in place", `{"type":"object","$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"},"v":{"type":"string"}}}},"properties":{"head":{"$ref":"#/$defs/Node"}}}`, `{"type":"object","$defs":{"Node":{"type":"object","properties":{"next":{"$ref":"#/$defs/Node"},"v":{"type":"integer"}}}},"properties":{"head":{"$ref":"#/$defs/Node"}}}`, []string{
			`BREAKING $defs.Node.v: Type changed from string to integer ["string" → "integer"] @/inputSchema/$defs/Node/properties/v/type`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, diffInput(t, tt.old, tt.new), tt.want)
		})
	}
}

// TestDiffOutput covers the output schema, seen from a client that reads
// results: narrowing promises more, widening may surprise, removal breaks.
func TestDiffOutput(t *testing.T) {
	in := `{"type":"object"}`
	out := func(props string, req ...string) string { return obj(props, req...) }
	tests := []struct {
		name     string
		old, new string
		want     []string
	}{
		{"output schema added", "", out(`"total":{"type":"integer"}`), []string{
			`SAFE (output): Output schema added: results now carry structured content [ → {"properties":{"total":{"type":"integer"}},"required":[],"type":"object"}] @/outputSchema`}},
		{"output schema removed", out(`"total":{"type":"integer"}`), "", []string{
			`BREAKING (output): Output schema removed: structured results are no longer promised [{"properties":{"total":{"type":"integer"}},"required":[],"type":"object"} → ] @/outputSchema`}},
		{"required field no longer returned", out(`"total":{"type":"integer"}`, "total"), out(``), []string{
			`BREAKING (output).total: Property no longer returned [{"type":"integer"} → ] @/outputSchema/properties/total`}},
		{"optional field no longer returned", out(`"note":{"type":"string"}`), out(``), []string{
			`RISKY (output).note: Optional property no longer returned [{"type":"string"} → ] @/outputSchema/properties/note`}},
		{"field added", out(``), out(`"note":{"type":"string"}`), []string{
			`SAFE (output).note: New property returned [ → {"type":"string"}] @/outputSchema/properties/note`}},
		{"no longer always returned", out(`"total":{}`, "total"), out(`"total":{}`), []string{
			`BREAKING (output).total: No longer always returned: may be missing @/outputSchema/required`}},
		{"now always returned", out(`"total":{}`), out(`"total":{}`, "total"), []string{
			`SAFE (output).total: Now always returned @/outputSchema/required`}},
		{"type widened", out(`"total":{"type":"integer"}`), out(`"total":{"type":"number"}`), []string{
			`RISKY (output).total: Type widened from integer to number ["integer" → "number"] @/outputSchema/properties/total/type`}},
		{"type narrowed", out(`"total":{"type":"number"}`), out(`"total":{"type":"integer"}`), []string{
			`SAFE (output).total: Type narrowed from number to integer ["number" → "integer"] @/outputSchema/properties/total/type`}},
		{"type changed", out(`"total":{"type":"number"}`), out(`"total":{"type":"string"}`), []string{
			`BREAKING (output).total: Type changed from number to string ["number" → "string"] @/outputSchema/properties/total/type`}},
		{"enum value added", out(`"status":{"enum":["paid","open"]}`), out(`"status":{"enum":["paid","open","void"]}`), []string{
			`RISKY (output).status: Value "void" is now returned [["paid","open"] → ["paid","open","void"]] @/outputSchema/properties/status/enum`}},
		{"items of an array result", `{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":"integer"}}`, []string{
			`BREAKING (output)[*]: Type changed from string to integer ["string" → "integer"] @/outputSchema/items/type`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			check(t, diffTools(t, mustTool(t, "t", "", in, tt.old), mustTool(t, "t", "", in, tt.new)), tt.want)
		})
	}
}

// TestDiffLocks: whole snapshots, tool-level changes and the order of the
// result (most severe first, then tool, field, location).
func TestDiffLocks(t *testing.T) {
	changes := Diff(billing(t, false), billing(t, true))
	var b strings.Builder
	for _, c := range changes {
		b.WriteString(c.Tool + " " + line(c) + "\n")
	}
	golden.Check(t, "billing.diff", []byte(b.String()))
	if Worst(changes) != Breaking || Worst(nil) != 0 {
		t.Error("Worst")
	}
	if d := Diff(nil, nil); d != nil {
		t.Errorf("Diff(nil, nil) = %v", d)
	}
	if d := Diff(billing(t, true), billing(t, true)); d != nil {
		t.Errorf("no change expected, got %v", d)
	}
	all := Diff(nil, billing(t, false))
	if len(all) != 3 || all[0].String() != "SAFE billing.list_invoices (tool): Tool added" {
		t.Errorf("from nothing: %v", all)
	}
}

func TestForTool(t *testing.T) {
	changes := Diff(billing(t, false), billing(t, true))
	kept, omitted := ForTool(changes, "billing.pay", 0)
	var got []string
	for _, c := range kept {
		got = append(got, c.String())
	}
	check(t, got, []string{
		"BREAKING billing.pay amount: Minimum raised from 0 to 1",
		"BREAKING billing.pay currency: Now required",
		"RISKY billing.pay currency: Default changed from \"EUR\" to \"USD\"",
	})
	if omitted != 0 {
		t.Errorf("omitted %d", omitted)
	}
	kept, omitted = ForTool(changes, "billing.pay", 2)
	if len(kept) != 2 || omitted != 1 || kept[0].Field != "amount" {
		t.Errorf("capped: %v, %d", kept, omitted)
	}
	// Exact names only: no substring, no prefix.
	for _, name := range []string{"billing", "pay", "billing.pa", "BILLING.PAY", ""} {
		if kept, omitted := ForTool(changes, name, 5); len(kept) != 0 || omitted != 0 {
			t.Errorf("ForTool(%q) = %v, %d", name, kept, omitted)
		}
	}
	// SAFE and COSMETIC changes never show.
	if kept, _ := ForTool(changes, "billing.void", 5); len(kept) != 0 {
		t.Errorf("billing.void: %v", kept)
	}
}

func TestSeverityText(t *testing.T) {
	for s := Cosmetic; s <= Breaking; s++ {
		text, err := s.MarshalText()
		var back Severity
		if err != nil || back.UnmarshalText([]byte(strings.ToLower(string(text)))) != nil || back != s {
			t.Errorf("%v: %s %v %v", s, text, err, back)
		}
	}
	var s Severity
	if _, err := Severity(0).MarshalText(); err == nil || s.UnmarshalText([]byte("FATAL")) == nil || Severity(9).String() != "Severity(9)" {
		t.Error("invalid severities accepted")
	}
	data, _ := json.Marshal(Change{Severity: Risky, Tool: "t", Field: "a", Description: "d", Location: "/x"})
	if string(data) != `{"severity":"RISKY","tool":"t","field":"a","description":"d","location":"/x"}` {
		t.Errorf("JSON %s", data)
	}
}

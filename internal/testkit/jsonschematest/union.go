package jsonschematest

import "testing"

// ScheduleSchema is z.discriminatedUnion("kind", [z.object({kind:
// z.literal("daily"), at: z.string()}), z.object({kind:
// z.literal("weekly"), day: z.number().int()})]) as zod 4.6.7's
// toJSONSchema writes it: objects told apart by the const of "kind".
const ScheduleSchema = `{"oneOf":[
	{"type":"object","properties":{"kind":{"type":"string","const":"daily"},"at":{"type":"string"}},"required":["kind","at"],"additionalProperties":false},
	{"type":"object","properties":{"kind":{"type":"string","const":"weekly"},"day":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991}},"required":["kind","day"],"additionalProperties":false}]}`

// FilterSchema is an object or a string, as servers generated from
// OpenAPI declare most object parameters.
const FilterSchema = `{"type":"object","properties":{"filter":{"anyOf":[
	{"type":"object","properties":{"property":{"type":"string"},"value":{"enum":["page","data_source"]}},"required":["property","value"]},
	{"type":"string"}]}},"required":["filter"]}`

// BlocksSchema is a list of blocks, each told apart by its type and
// holding its content under a key named after it (Notion's blocks).
const BlocksSchema = `{"type":"object","properties":{"children":{"type":"array","items":{"oneOf":[
	{"type":"object","properties":{"type":{"const":"bulleted_list_item"},"bulleted_list_item":{"type":"object","properties":{"rich_text":{"type":"array","items":{"type":"string"}}},"required":["rich_text"],"additionalProperties":false}},"required":["type","bulleted_list_item"],"additionalProperties":false},
	{"type":"object","properties":{"type":{"const":"numbered_list_item"},"numbered_list_item":{"type":"object","properties":{"rich_text":{"type":"array","items":{"type":"string"}}},"required":["rich_text"],"additionalProperties":false}},"required":["type","numbered_list_item"],"additionalProperties":false}]}}},"required":["children"]}`

// UnionTable is the union table both adapters must pass, with near misses
// off: a discriminator that names no alternative, nor one in another case or
// spelling, is one line listing every alternative's value, where the
// server (zod) says 'daily' | 'weekly'; one that names an alternative, or
// one alone in another case or spelling, leaves that alternative's own
// issues (see nearmiss.Chosen).
var UnionTable = []TypoCase{
	{Name: "a miss", Schema: ScheduleSchema, Instance: `{"kind":"monthly"}`,
		Want: []string{"kind\tYou sent: 'monthly'. Expected one of 'daily','weekly'."},
		Ja:   []string{"kind\t送信値: 'monthly'。期待: 'daily','weekly' のいずれか。"},
		Issues: `[{"code":"invalid_value","path":["kind"],"input":"monthly","values":["daily","weekly"],
			"source":"jsonschema:oneOf"}]`},
	// A value in another case chooses its alternative: the line names
	// the value that selects it, and the alternative's other faults follow.
	{Name: "a near miss", Schema: ScheduleSchema, Instance: `{"kind":"Daily","at":"09:00"}`,
		Want: []string{"kind\tYou sent: 'Daily'. Expected exactly 'daily'."},
		Ja:   []string{"kind\t送信値: 'Daily'。期待: 'daily'。"}},
	{Name: "a near miss and another fault", Schema: ScheduleSchema, Instance: `{"kind":"Weekly","day":"mon"}`,
		Want: []string{"kind\tYou sent: 'Weekly'. Expected exactly 'weekly'.",
			"day\tYou sent: 'mon'. Expected an integer."}},
	{Name: "a misspelling", Schema: ScheduleSchema, Instance: `{"kind":"weekyl","day":1.5}`,
		Want: []string{"kind\tYou sent: 'weekyl'. Expected exactly 'weekly'.",
			"day\tYou sent: 1.5. Expected an integer."}},
	{Name: "missing", Schema: ScheduleSchema, Instance: `{"at":"09:00"}`,
		Want: []string{"kind\tYou sent: nothing. Expected one of 'daily','weekly'."},
		Ja:   []string{"kind\t送信値: なし。期待: 'daily','weekly' のいずれか。"},
		Issues: `[{"code":"invalid_type","path":["kind"],"expected":"string","values":["daily","weekly"],
			"source":"jsonschema:oneOf"}]`},
	{Name: "wrong type", Schema: ScheduleSchema, Instance: `{"kind":7}`,
		Want: []string{"kind\tYou sent: 7. Expected one of 'daily','weekly'."}},
	// The discriminator chose weekly: its own issue, as any union's.
	{Name: "matching branch", Schema: ScheduleSchema, Instance: `{"kind":"weekly","day":"mon"}`,
		Want: []string{"day\tYou sent: 'mon'. Expected an integer."},
		Ja:   []string{"day\t送信値: 'mon'。期待: 整数。"}},
	// A key another alternative declares is not unknown in the one chosen,
	// nor a near miss of its names: a field that alternative does not take.
	{Name: "a key of another alternative", Schema: BlocksSchema,
		Instance: `{"children":[{"type":"numbered_list_item","bulleted_list_item":{"rich_text":["a"]}}]}`,
		Want: []string{"children[0].bulleted_list_item\tThis field must not be sent. You sent: {\"rich_text\":[\"a\"]}. Expected the object without it.",
			"children[0].numbered_list_item\tYou sent: nothing. Expected an object."}},
	// Declared by the other alternative through allOf, a $ref or a
	// pattern: not unknown either (issue 37 rule 4).
	{Name: "a key another alternative declares under allOf", Schema: `{"oneOf":[
			{"type":"object","properties":{"type":{"const":"a"},"x":{}},"required":["type"],"additionalProperties":false},
			{"type":"object","properties":{"type":{"const":"b"}},"allOf":[{"properties":{"y":{}}}],"required":["type"]}]}`,
		Instance: `{"type":"a","x":1,"y":2}`,
		Want:     []string{"y\tThis field must not be sent. You sent: 2. Expected the object without it."}},
	{Name: "a key another alternative declares through $ref", Schema: `{"oneOf":[
			{"type":"object","properties":{"type":{"const":"a"},"x":{}},"required":["type"],"additionalProperties":false},
			{"$ref":"#/$defs/b"}],"$defs":{"b":{"type":"object","properties":{"type":{"const":"b"},"y":{}},"required":["type"]}}}`,
		Instance: `{"type":"a","x":1,"y":2}`,
		Want:     []string{"y\tThis field must not be sent. You sent: 2. Expected the object without it."}},
	{Name: "a key another alternative's pattern declares", Schema: `{"oneOf":[
			{"type":"object","properties":{"type":{"const":"a"},"x":{}},"required":["type"],"additionalProperties":false},
			{"type":"object","properties":{"type":{"const":"b"}},"patternProperties":{"^y_":{}},"required":["type"]}]}`,
		Instance: `{"type":"a","x":1,"y_1":2}`,
		Want:     []string{"y_1\tThis field must not be sent. You sent: 2. Expected the object without it."}},
	{Name: "a key another alternative takes by additionalProperties", Schema: `{"oneOf":[
			{"type":"object","properties":{"type":{"const":"a"},"x":{}},"required":["type"],"additionalProperties":false},
			{"type":"object","properties":{"type":{"const":"b"}},"additionalProperties":{"type":"string"},"required":["type"]}]}`,
		Instance: `{"type":"a","x":1,"z":"2"}`,
		Want:     []string{"z\tThis field must not be sent. You sent: '2'. Expected the object without it."}},
	// No alternative takes a string: one line says what they take, and
	// the keys every object alternative requires (issue 37 rule 3).
	{Name: "not an object", Schema: ScheduleSchema, Instance: `"daily"`,
		Want: []string{"(root)\tYou sent: 'daily'. Expected an object with 'kind'."}},
	// An object or a string (what servers generated from OpenAPI send):
	// the object's fault, never "Expected a string".
	{Name: "object or string, nested enum", Schema: FilterSchema, Instance: `{"filter":{"property":"object","value":"Page"}}`,
		Want: []string{"filter.value\tYou sent: 'Page'. Expected one of 'page','data_source'."}},
	{Name: "object or string, neither", Schema: FilterSchema, Instance: `{"filter":5}`,
		Want: []string{"filter\tYou sent: 5. Expected a string or an object with 'property','value'."},
		Ja:   []string{"filter\t送信値: 5。期待: 文字列またはオブジェクト（'property','value' を含む）。"},
		// The object alternative's type issue carries the keys it requires.
		Issues: `[{"code":"invalid_union","path":["filter"],"input":5,"errors":[
			[{"code":"invalid_type","path":["filter"],"input":5,"expected":"object","keys":["property","value"],"source":"jsonschema:type"}],
			[{"code":"invalid_type","path":["filter"],"input":5,"expected":"string","source":"jsonschema:type"}]],"source":"jsonschema:anyOf"}]`},
	{Name: "object or integer, nested const and pattern", Schema: `{"properties":{"page":{"anyOf":[{"type":"integer"},
			{"type":"object","properties":{"kind":{"const":"cursor"},"cursor":{"type":"string","pattern":"^c_"}},"required":["kind","cursor"]}]}}}`,
		Instance: `{"page":{"kind":"cursor","cursor":"x1"}}`,
		Want:     []string{"page.cursor\tYou sent: 'x1'. Expected to match '^c_'."}},
	// Numbers compare as numbers: 1.0 is 1, which chose the first.
	{Name: "numbers", Schema: `{"anyOf":[{"properties":{"v":{"const":1},"a":{}},"required":["v","a"]},{"properties":{"v":{"const":2.5},"b":{}},"required":["v","b"]}]}`,
		Instance: `{"v":3}`,
		Want:     []string{"v\tYou sent: 3. Expected one of 1, 2.5."}},
	{Name: "numbers, matching", Schema: `{"anyOf":[{"properties":{"v":{"const":1},"a":{}},"required":["v","a"]},{"properties":{"v":{"const":2.5},"b":{}},"required":["v","b"]}]}`,
		Instance: `{"v":1.0}`,
		Want:     []string{"a\tYou sent: nothing. Expected a value."}},
	{Name: "booleans, enums of one", Schema: `{"oneOf":[{"properties":{"ok":{"enum":[true]},"data":{}},"required":["ok","data"]},{"properties":{"ok":{"enum":[false]},"error":{"type":"string"}},"required":["ok","error"]}]}`,
		Instance: `{"ok":"yes"}`,
		Want:     []string{"ok\tYou sent: 'yes'. Expected one of true, false."}},
	{Name: "booleans, missing", Schema: `{"oneOf":[{"properties":{"ok":{"enum":[true]},"data":{}},"required":["ok","data"]},{"properties":{"ok":{"enum":[false]},"error":{"type":"string"}},"required":["ok","error"]}]}`,
		Instance: `{"error":"x"}`,
		Want:     []string{"ok\tYou sent: nothing. Expected one of true, false."},
		Issues:   `[{"code":"invalid_type","path":["ok"],"expected":"boolean","values":[true,false],"source":"jsonschema:oneOf"}]`},
	// Values of two types (zod's z.literal(1) and z.literal(true)).
	{Name: "mixed types, missing", Schema: `{"oneOf":[{"type":"object","properties":{"v":{"type":"number","const":1}},"required":["v"],"additionalProperties":false},
			{"type":"object","properties":{"v":{"type":"boolean","const":true},"x":{"type":"string"}},"required":["v","x"],"additionalProperties":false}]}`,
		Instance: `{}`,
		Want:     []string{"v\tYou sent: nothing. Expected one of 1, true."},
		Ja:       []string{"v\t送信値: なし。期待: 1, true のいずれか。"},
		Issues:   `[{"code":"invalid_type","path":["v"],"expected":"integer|boolean","values":[1,true],"source":"jsonschema:oneOf"}]`},
	// Not required by every alternative: an object without it may be
	// another problem.
	{Name: "optional discriminator, missing", Schema: `{"anyOf":[{"properties":{"kind":{"const":"a"},"x":{"type":"string"}},"required":["x"]},{"properties":{"kind":{"const":"b"}},"required":["kind"]}]}`,
		Instance: `{"x":1}`,
		Want:     []string{"x\tClosest of 2 alternatives: You sent: 1. Expected a string."}},
	// Two alternatives with one value: not a discriminator.
	{Name: "values repeated", Schema: `{"anyOf":[{"properties":{"kind":{"const":"a"},"x":{"type":"string"}},"required":["kind","x"]},{"properties":{"kind":{"const":"a"},"y":{"type":"string"}},"required":["kind","y"]}]}`,
		Instance: `{"kind":"b","x":"1"}`,
		Want:     []string{"kind\tClosest of 2 alternatives: You sent: 'b'. Expected exactly 'a'."}},
	{Name: "through $ref", Schema: `{"oneOf":[{"$ref":"#/$defs/daily"},{"$ref":"#/$defs/weekly"}],"$defs":{
			"daily":{"type":"object","properties":{"kind":{"$ref":"#/$defs/dailyKind"}},"required":["kind"]},
			"dailyKind":{"const":"daily"},
			"weekly":{"type":"object","properties":{"kind":{"enum":["weekly"]}},"required":["kind"]}}}`,
		Instance: `{"kind":"monthly"}`,
		Want:     []string{"kind\tYou sent: 'monthly'. Expected one of 'daily','weekly'."}},
	{Name: "nested in a property", Schema: `{"type":"object","properties":{"schedule":` + ScheduleSchema + `},"required":["schedule"]}`,
		Instance: `{"schedule":{"kind":"monthly"}}`,
		Want:     []string{"schedule.kind\tYou sent: 'monthly'. Expected one of 'daily','weekly'."},
		Ja:       []string{"schedule.kind\t送信値: 'monthly'。期待: 'daily','weekly' のいずれか。"}},
	{Name: "nested in items", Schema: `{"type":"array","items":` + ScheduleSchema + `}`,
		Instance: `[{"kind":"daily","at":"9"},{}]`,
		Want:     []string{"[1].kind\tYou sent: nothing. Expected one of 'daily','weekly'."}},
	// A union inside the alternative the outer discriminator chose: the
	// inner discriminator's line, at its place.
	{Name: "a union in the chosen alternative", Schema: `{"oneOf":[
			{"type":"object","properties":{"kind":{"const":"once"},"at":{"type":"string"}},"required":["kind","at"]},
			{"type":"object","properties":{"kind":{"const":"repeat"},"every":` + ScheduleSchema + `},"required":["kind","every"]}]}`,
		Instance: `{"kind":"repeat","every":{"kind":"hourly"}}`,
		Want:     []string{"every.kind\tYou sent: 'hourly'. Expected one of 'daily','weekly'."}},
}

// RunUnions checks every case of UnionTable, with near misses off.
func RunUnions(t *testing.T, compile TypoCompiler) {
	for _, c := range UnionTable {
		t.Run(c.Name, func(t *testing.T) {
			validate, err := compile([]byte(c.Schema), false)
			if err != nil {
				t.Fatal(err)
			}
			checkLines(t, c, validate(decode(t, c.Instance)))
		})
	}
}

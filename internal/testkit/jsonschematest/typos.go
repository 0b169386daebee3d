package jsonschematest

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/race"
	"github.com/selfheal/selfheal/issues"
)

// The input schemas of the reference filesystem MCP server
// (@modelcontextprotocol/server-filesystem, as its tools/list gives them):
// open, as most servers' are, so that a key it does not declare is
// accepted and dropped.
const (
	EditFileSchema  = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string","description":"Text to search for - must match exactly"},"newText":{"type":"string","description":"Text to replace with"}},"required":["oldText","newText"]}},"dryRun":{"default":false,"description":"Preview changes using git-style diff format","type":"boolean"}},"required":["path","edits"]}`
	WriteFileSchema = `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}`
)

// SearchSchema is an open schema with a required property and optional
// ones; SearchSchemaClosed the same, closed.
const (
	SearchSchema       = `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"dryRun":{"type":"boolean"}},"required":["query"]}`
	SearchSchemaClosed = `{"type":"object","properties":{"query":{"type":"string"},"limit":{"type":"integer"},"dryRun":{"type":"boolean"}},"required":["query"],"additionalProperties":false}`
)

// TypoCase is one schema, one instance and the field lines of the
// validation_error the facade renders for the adapter's issues with near
// misses on (WithTypos), each "name<TAB>text" in the order shown; no line
// means the instance is valid and has no near miss. Ja, when set, is the
// same in Japanese; Issues, when set, the issues' JSON form.
type TypoCase struct {
	Name, Schema, Instance string
	Want, Ja               []string
	Issues                 string
}

// TypoTable is the near-miss table both adapters must pass.
var TypoTable = []TypoCase{
	{Name: "edit_file dryrun", Schema: EditFileSchema, Instance: `{"path":"a","edits":[],"dryrun":true}`,
		Want: []string{"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys."},
		Ja:   []string{"(root)\t不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。"},
		Issues: `[{"code":"unrecognized_keys","path":[],"input":{"path":"a","edits":[],"dryrun":true},"keys":["dryrun"],"allowed":["dryRun"],
			"check":"near_miss","source":"selfheal:typo"}]`},
	// content is required: the tool refuses the call rather than ignore
	// the key, so the line says the field is missing, at the field, with
	// the key sent, as a closed schema's does. The issues keep both.
	{Name: "write_file contents", Schema: WriteFileSchema, Instance: `{"path":"a","contents":"x"}`,
		Want: []string{"content\tMissing. You sent: the unknown key 'contents'. Expected a string."},
		Ja:   []string{"content\t必須です。送信値: 不明なキー 'contents'。期待: 文字列。"},
		Issues: `[{"code":"invalid_type","path":["content"],"expected":"string","source":"jsonschema:required"},
			{"code":"unrecognized_keys","path":[],"input":{"path":"a","contents":"x"},"keys":["contents"],"allowed":["content"],
			"check":"near_miss","source":"selfheal:typo"}]`},
	{Name: "snake case", Schema: EditFileSchema, Instance: `{"path":"a","edits":[],"dry_run":true}`,
		Want: []string{"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dry_run'. Expected that key: the tool ignores unknown keys."}},
	{Name: "upper case", Schema: EditFileSchema, Instance: `{"path":"a","edits":[],"DRYRUN":true}`,
		Want: []string{"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'DRYRUN'. Expected that key: the tool ignores unknown keys."}},
	// Beyond the edit distance, the same name once case and separators go.
	{Name: "separators everywhere", Schema: EditFileSchema, Instance: `{"path":"a","edits":[],"d-r-y-r-u-n":true}`,
		Want: []string{"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'd-r-y-r-u-n'. Expected that key: the tool ignores unknown keys."}},
	{Name: "two keys for one name", Schema: EditFileSchema, Instance: `{"path":"a","edits":[],"dryrun":true,"dry_run":false}`,
		Want: []string{"(root)\tUnknown keys; did you mean 'dryRun'? You sent: 'dry_run','dryrun'. Expected those keys: the tool ignores unknown keys."}},
	{Name: "two in one object", Schema: WriteFileSchema, Instance: `{"pth":"a","contents":"x"}`,
		Want: []string{
			"content\tMissing. You sent: the unknown key 'contents'. Expected a string.",
			"path\tMissing. You sent: the unknown key 'pth'. Expected a string.",
		}},
	// One near miss of an optional property, one of a required one: the
	// object's line keeps the first only, and what it stands for.
	{Name: "optional and required in one object", Schema: SearchSchema, Instance: `{"qurey":"x","dryrun":true}`,
		Want: []string{
			"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.",
			"query\tMissing. You sent: the unknown key 'qurey'. Expected a string.",
		},
		Ja: []string{
			"(root)\t不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。",
			"query\t必須です。送信値: 不明なキー 'qurey'。期待: 文字列。",
		},
		Issues: `[{"code":"invalid_type","path":["query"],"expected":"string","source":"jsonschema:required"},
			{"code":"unrecognized_keys","path":[],"input":{"qurey":"x","dryrun":true},"keys":["dryrun","qurey"],"allowed":["dryRun","query"],
			"check":"near_miss","source":"selfheal:typo"}]`},
	// A closed schema's library reports the key and the missing field: the
	// same line as the open schema's near miss.
	{Name: "required, closed", Schema: SearchSchemaClosed, Instance: `{"qurey":"x"}`,
		Want: []string{"query\tMissing. You sent: the unknown key 'qurey'. Expected a string."},
		Ja:   []string{"query\t必須です。送信値: 不明なキー 'qurey'。期待: 文字列。"}},
	{Name: "required, open", Schema: SearchSchema, Instance: `{"qurey":"x"}`,
		Want: []string{"query\tMissing. You sent: the unknown key 'qurey'. Expected a string."},
		Ja:   []string{"query\t必須です。送信値: 不明なキー 'qurey'。期待: 文字列。"}},
	{Name: "optional, open", Schema: SearchSchema, Instance: `{"query":"x","limt":3}`,
		Want: []string{"(root)\tUnknown key; did you mean 'limit'? You sent: 'limt'. Expected that key: the tool ignores unknown keys."},
		Ja:   []string{"(root)\t不明なキーです。'limit' の間違いではありませんか。送信値: 'limt'。期待: そのキー。宣言されていないキーはツールに無視されます。"}},
	{Name: "required, nested, closed", Schema: `{"type":"object","properties":{"filter":` + SearchSchemaClosed + `},"required":["filter"]}`,
		Instance: `{"filter":{"qurey":"x"}}`,
		Want:     []string{"filter.query\tMissing. You sent: the unknown key 'qurey'. Expected a string."}},
	{Name: "required, nested, open", Schema: `{"type":"object","properties":{"filter":` + SearchSchema + `},"required":["filter"]}`,
		Instance: `{"filter":{"qurey":"x","dryrun":true}}`,
		Want: []string{
			"filter\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.",
			"filter.query\tMissing. You sent: the unknown key 'qurey'. Expected a string.",
		},
		Ja: []string{
			"filter\t不明なキーです。'dryRun' の間違いではありませんか。送信値: 'dryrun'。期待: そのキー。宣言されていないキーはツールに無視されます。",
			"filter.query\t必須です。送信値: 不明なキー 'qurey'。期待: 文字列。",
		},
		Issues: `[{"code":"unrecognized_keys","path":["filter"],"input":{"qurey":"x","dryrun":true},"keys":["dryrun","qurey"],"allowed":["dryRun","query"],
			"check":"near_miss","source":"selfheal:typo"},
			{"code":"invalid_type","path":["filter","query"],"expected":"string","source":"jsonschema:required"}]`},
	// The same name beyond the edit distance stands for a required field too.
	{Name: "required, separators everywhere", Schema: SearchSchema, Instance: `{"q-u-e-r-y":"x"}`,
		Want: []string{"query\tMissing. You sent: the unknown key 'q-u-e-r-y'. Expected a string."}},
	// The first key is the missing field's; the other is still a near miss
	// the tool ignores.
	{Name: "required, two keys for it", Schema: SearchSchema, Instance: `{"qeury":"x","qurey":"y"}`,
		Want: []string{
			"(root)\tUnknown key; did you mean 'query'? You sent: 'qurey'. Expected that key: the tool ignores unknown keys.",
			"query\tMissing. You sent: the unknown key 'qeury'. Expected a string.",
		}},
	// A union's discriminator is a required field of every alternative.
	{Name: "a union's discriminator", Schema: `{"type":"object","properties":{"schedule":` + ScheduleSchema + `}}`,
		Instance: `{"schedule":{"knd":"daily","at":"9"}}`,
		Want:     []string{"schedule.kind\tMissing. You sent: the unknown key 'knd'. Expected a string."}},
	// Near a property that was sent: an extra key, not a misspelling.
	{Name: "near a property sent", Schema: EditFileSchema, Instance: `{"path":"a","edits":[],"dryRun":false,"dryrun":true}`},
	{Name: "near a property sent, another missing", Schema: WriteFileSchema, Instance: `{"path":"a","pth":"b"}`,
		Want: []string{"content\tYou sent: nothing. Expected a string."}},
	{Name: "near nothing", Schema: EditFileSchema, Instance: `{"path":"a","edits":[],"mode":"x"}`},
	{Name: "other failures kept", Schema: EditFileSchema, Instance: `{"path":1,"edits":[],"dryrun":true}`,
		Want: []string{
			"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys.",
			"path\tYou sent: 1. Expected a string.",
		}},
	{Name: "nested, valid", Schema: `{"type":"object","properties":{"opts":{"type":"object","properties":{"dryRun":{"type":"boolean"}}}}}`,
		Instance: `{"opts":{"dryrun":true}}`,
		Want:     []string{"opts\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys."}},
	// The missing newText is what 'newtext' stands for.
	{Name: "nested in items", Schema: EditFileSchema, Instance: `{"path":"a","edits":[{"oldText":"x","newText":"y"},{"oldText":"x","newtext":"y"}]}`,
		Want: []string{"edits[1].newText\tMissing. You sent: the unknown key 'newtext'. Expected a string."}},
	{Name: "through $ref and allOf", Schema: `{"$ref":"#/$defs/args","$defs":{"args":{"allOf":[{"properties":{"dryRun":{}}}],"properties":{"path":{}}}}}`,
		Instance: `{"path":"a","dryrun":true}`,
		Want:     []string{"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected that key: the tool ignores unknown keys."}},
	{Name: "recursive schema", Schema: `{"$ref":"#/$defs/node","$defs":{"node":{"type":"object","properties":{"name":{},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`,
		Instance: `{"name":"a","children":[{"name":"b","children":[{"nmae":"c"}]}]}`,
		Want:     []string{"children[0].children[0]\tUnknown key; did you mean 'name'? You sent: 'nmae'. Expected that key: the tool ignores unknown keys."}},
	// additionalProperties: false: the library's own line, not a second.
	{Name: "closed schema", Schema: `{"type":"object","properties":{"path":{"type":"string"},"dryRun":{"type":"boolean"}},"additionalProperties":false}`,
		Instance: `{"path":"a","dryrun":true}`,
		Want:     []string{"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected one of 'dryRun','path'."}},
	{Name: "closed by unevaluatedProperties", Schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","allOf":[{"properties":{"path":{}}}],"properties":{"dryRun":{}},"unevaluatedProperties":false}`,
		Instance: `{"path":"a","dryrun":true}`,
		Want:     []string{"(root)\tUnknown key; did you mean 'dryRun'? You sent: 'dryrun'. Expected one of 'dryRun','path'."}},
	// A record: its undeclared keys are entries.
	{Name: "additionalProperties schema", Schema: `{"type":"object","properties":{"total":{}},"additionalProperties":{"type":"number"}}`,
		Instance: `{"totals":1}`},
	{Name: "patternProperties", Schema: `{"type":"object","properties":{"dryRun":{}},"patternProperties":{"^dry":{}}}`,
		Instance: `{"dryrun":true}`},
	// Issue 37 rule 4: a key the schema declares elsewhere than in
	// properties is never a near miss of a declared name ('limits' is
	// not 'limit' misspelt when allOf, a $ref or a pattern declares it).
	{Name: "declared under allOf", Schema: `{"type":"object","properties":{"limit":{}},"allOf":[{"properties":{"limits":{}}}]}`,
		Instance: `{"limits":1}`},
	{Name: "declared through $ref", Schema: `{"type":"object","$ref":"#/$defs/more","properties":{"limit":{}},"$defs":{"more":{"properties":{"limits":{}}}}}`,
		Instance: `{"limits":1}`},
	{Name: "declared by a pattern", Schema: `{"type":"object","properties":{"limit":{}},"patternProperties":{"^limit":{}}}`,
		Instance: `{"limits":1}`},
	{Name: "declared under anyOf", Schema: `{"type":"object","properties":{"limit":{}},"anyOf":[{"properties":{"limits":{}}},{"required":["limit"]}]}`,
		Instance: `{"limits":1}`},
	{Name: "declared in an alternative of a nested object", Schema: `{"type":"object","properties":{"page":{"type":"object","properties":{"size":{}},"oneOf":[{"properties":{"sizes":{}},"required":["sizes"]},{"required":["size"]}]}}}`,
		Instance: `{"page":{"sizes":[1]}}`},
	// Too short to tell a misspelling from another name.
	{Name: "short names", Schema: `{"type":"object","properties":{"id":{},"to":{}}}`, Instance: `{"ip":1,"at":2}`},
}

// TypoCompiler compiles a schema for an adapter, with near misses on or off.
type TypoCompiler func(schema []byte, typos bool) (Validator, error)

// RunTypos checks every case of TypoTable with near misses on, and that with
// them off no near-miss issue is ever reported.
func RunTypos(t *testing.T, compile TypoCompiler) {
	for _, c := range TypoTable {
		t.Run(c.Name, func(t *testing.T) {
			v := decode(t, c.Instance)
			validate, err := compile([]byte(c.Schema), true)
			if err != nil {
				t.Fatal(err)
			}
			checkLines(t, c, validate(v))
			off, err := compile([]byte(c.Schema), false)
			if err != nil {
				t.Fatal(err)
			}
			for _, is := range off(v) {
				if is.Check == issues.CheckNearMiss {
					t.Errorf("near miss reported with the option off: %+v", is)
				}
			}
		})
	}
}

// checkLines fails t unless list has the lines of c (and its issues, when
// c has them).
func checkLines(t *testing.T, c TypoCase, list issues.List) {
	t.Helper()
	if got := renderLines(t, list, ""); !slices.Equal(got, c.Want) {
		t.Errorf("lines differ\n got: %q\nwant: %q", got, c.Want)
	}
	if c.Ja != nil {
		if got := renderLines(t, list, "ja"); !slices.Equal(got, c.Ja) {
			t.Errorf("ja lines differ\n got: %q\nwant: %q", got, c.Ja)
		}
	}
	if c.Issues != "" {
		var want issues.List
		if err := json.Unmarshal([]byte(c.Issues), &want); err != nil {
			t.Fatal(err)
		}
		if got, w := Canonical(list), Canonical(want); got != w {
			t.Errorf("issues differ\n got: %s\nwant: %s", got, w)
		}
	}
}

// decode decodes an instance as the adapters are given one.
func decode(t *testing.T, instance string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(instance)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// renderLines renders list through the facade, in locale ("" for the
// default), and returns its field lines as "name<TAB>text", nil for none.
func renderLines(t *testing.T, list issues.List, locale string) []string {
	t.Helper()
	if len(list) == 0 {
		return nil
	}
	var opts []selfheal.Option
	if locale != "" {
		opts = append(opts, selfheal.WithLocale(locale))
	}
	doc, err := envelope.Parse(selfheal.New(opts...).Format("tool", list))
	if err != nil || doc.Validation == nil {
		t.Fatalf("rendered output does not parse as a validation_error: %v", err)
	}
	var lines []string
	for _, f := range doc.Validation.Fields {
		lines = append(lines, f.Name+"\t"+f.Text)
	}
	return lines
}

// TypoAllocations checks that near misses on cost a call without one no
// allocation: a valid edit_file (nested edits included) and an invalid
// one allocate no more with them on than off.
func TypoAllocations(t *testing.T, compile TypoCompiler) {
	t.Helper()
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	on, err := compile([]byte(EditFileSchema), true)
	if err != nil {
		t.Fatal(err)
	}
	off, err := compile([]byte(EditFileSchema), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, instance := range []string{
		`{"path":"a","edits":[{"oldText":"x","newText":"y"},{"oldText":"z","newText":"w"}],"dryRun":true,"extra":1}`,
		`{"path":1,"edits":[{"oldText":"x"}]}`,
	} {
		v := decode(t, instance)
		if list := on(v); slices.ContainsFunc(list, func(is issues.Issue) bool { return is.Check == issues.CheckNearMiss }) {
			t.Fatalf("%s: a near miss: %v", instance, list)
		}
		offAllocs := testing.AllocsPerRun(100, func() { _ = off(v) })
		onAllocs := testing.AllocsPerRun(100, func() { _ = on(v) })
		if onAllocs > offAllocs {
			t.Errorf("%s: %v allocations per call with near misses on, %v off", instance, onAllocs, offAllocs)
		}
	}
}

package fuzz

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
)

// budgetSchema declares closed and open objects, typed maps, arrays of
// objects, enums, formats and a union: every shape an adapter walks.
const budgetSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 8},
    "email": {"type": "string", "format": "email"},
    "role": {"enum": ["admin", "member", "viewer"]},
    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 4, "uniqueItems": true},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "items": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}, "required": ["qty"], "additionalProperties": false}},
    "any": {"anyOf": [{"type": "integer"}, {"type": "object", "properties": {"a": {"$ref": "#/properties/any"}}}]}
  },
  "required": ["name", "email"],
  "additionalProperties": false
}`

// budgetArgs is budgetSchema as a Go struct, for jsondecode.
type budgetArgs struct {
	Name   string            `json:"name"`
	Email  string            `json:"email"`
	Role   string            `json:"role"`
	Tags   []string          `json:"tags"`
	Labels map[string]string `json:"labels"`
	Items  []struct {
		Qty int `json:"qty"`
	} `json:"items"`
	Any any `json:"any"`
}

// budgetBound is what a validation_error or its issues' JSON may take past
// the byte budget: the envelope, the note on omitted issues, and the first
// line, which is always shown (every value, key, list and nested line in it
// is bounded).
const budgetBound = 4 << 10

// FuzzBudget feeds arbitrary arguments, and the same bytes made wide (as
// a key, a value and many items) and deep, to jsondecode and both JSON
// Schema adapters, and checks what a model would read whatever was sent:
// nothing panics, the validation_error parses as XML, and it and the
// structured issues stay within the budget plus budgetBound.
func FuzzBudget(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"name":"A","emial":"x","role":"Admin","tags":["ab","ab",1]}`, `{"items":[{},{"qty":"1","qtty":1}]}`,
		`{"labels":{"a":1,"]]>":"</field>"}}`, `{"any":{"a":{"a":{"a":"x"}}}}`, `{"name":1e1000000}`,
		"{\"\xff\xfe\":\"\xff\",\"name\":\"\x00\"}", strings.Repeat(`{"any":`, 100), `[`, `"\ud800"`,
	} {
		f.Add([]byte(s), uint16(3), uint8(2))
	}
	f.Add([]byte(`"x"`), uint16(5000), uint8(200))
	// Unions nested just under the adapters' depth limit: worded level by
	// level, the one line took 5 KiB.
	f.Add([]byte(`{"any":`+strings.Repeat(`{"a":`, 60)+`"x"`+strings.Repeat(`}`, 60)+`}`), uint16(0), uint8(0))
	v6, err := jsonschemav6.Compile([]byte(budgetSchema))
	if err != nil {
		f.Fatal(err)
	}
	v5, err := jsonschemav5.Compile([]byte(budgetSchema))
	if err != nil {
		f.Fatal(err)
	}
	engines := []budgetEngine{
		{selfheal.New(), 4 << 10},
		{selfheal.New(selfheal.WithMaxBytes(300), selfheal.WithLocale("ja")), 300},
	}
	f.Fuzz(func(t *testing.T, data []byte, wide uint16, deep uint8) {
		// Wide, but not so wide that one input takes a second: a document
		// of a few hundred KiB has every shape a larger one has.
		n := min(int(wide), (256<<10)/(len(data)+1))
		key, _ := json.Marshal(string(data))
		var b strings.Builder
		b.WriteString(`{"name":`)
		b.Write(key)
		b.WriteString(`,`)
		b.Write(key)
		b.WriteString(`:1,"labels":{`)
		b.Write(key)
		b.WriteString(`:[]},"items":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(data)
		}
		b.WriteString(`],"any":`)
		b.WriteString(strings.Repeat(`{"a":`, int(deep)))
		b.Write(key)
		b.WriteString(strings.Repeat(`}`, int(deep)))
		b.WriteString(`}`)
		for _, doc := range [][]byte{data, []byte(b.String())} {
			var args budgetArgs
			lists := []issues.List{v6.ValidateJSON(doc), v5.ValidateJSON(doc)}
			if err := jsondecode.Decode(doc, &args); err != nil {
				lists = append(lists, err.(issues.List))
			}
			for _, list := range lists {
				for _, e := range engines {
					checkBudget(t, e, list, doc)
				}
			}
		}
	})
}

// budgetEngine is an engine and its byte budget.
type budgetEngine struct {
	*selfheal.Engine
	budget int
}

func checkBudget(t *testing.T, e budgetEngine, list issues.List, doc []byte) {
	t.Helper()
	if len(list) == 0 {
		return
	}
	max := e.budget + budgetBound
	out := e.Format("tool", list)
	if len(out) > max {
		t.Fatalf("%d bytes of validation_error for %.200q:\n%.2000s", len(out), doc, out)
	}
	if d, err := envelope.Parse(out); err != nil || d.Validation == nil || len(d.Validation.Fields) == 0 {
		t.Fatalf("not a validation_error with fields (%v) for %.200q:\n%.2000s", err, doc, out)
	}
	_, shown := e.Result("tool", list)
	data, err := json.Marshal(shown)
	if err != nil {
		t.Fatalf("issues do not marshal: %v", err)
	}
	if len(data) > max {
		t.Fatalf("%d bytes of issues JSON for %.200q:\n%.2000s", len(data), doc, data)
	}
}

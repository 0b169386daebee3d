package fuzz

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/contract"
)

// Names in this file start with "contract" or "Fuzz": other packages'
// targets share package fuzz.

// contractSeeds are schema pairs that exercise every branch of the diff.
var contractSeeds = [][2]string{
	{`{"type":"object","properties":{"a":{"type":"integer","minimum":0}},"required":["a"]}`, `{"type":"object","properties":{"a":{"type":"integer","minimum":1},"b":{}},"required":["a","b"]}`},
	{`{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N"}}}},"properties":{"h":{"$ref":"#/$defs/N"}}}`, `{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N"},"v":{"type":"string"}}}},"properties":{"h":{"$ref":"#/$defs/N"}}}`},
	{`{"anyOf":[{"type":"string","maxLength":5},{"type":"integer"}]}`, `{"anyOf":[{"type":"integer"},{"type":"null"},{"type":"string","maxLength":3}]}`},
	{`{"oneOf":[true,false,{"const":1}],"allOf":[{}]}`, `{"oneOf":[false],"allOf":[{"not":{}}]}`},
	{`{"properties":{"x":{"enum":[1,"a",null,{"k":[]}]}},"additionalProperties":false}`, `{"properties":{"x":{"enum":["a",1.0]}},"additionalProperties":{"type":"string"}}`},
	{`{"type":["string","null"],"minLength":1,"pattern":"^a","format":"email","default":"a"}`, `{"type":"string","minLength":0,"pattern":"^b","default":"b","deprecated":true}`},
	{`{"exclusiveMinimum":true,"minimum":0,"multipleOf":0.5,"maximum":1e400}`, `{"exclusiveMinimum":0,"multipleOf":0.25,"maximum":-1e400}`},
	{`{"prefixItems":[{"type":"number"}],"items":{"type":"string"},"contains":{"const":1},"minContains":2}`, `{"items":[{"type":"number"},{}],"uniqueItems":true}`},
	{`{"properties":{"a.b":{"$ref":"#/properties/c"},"c":{"type":"string"}}}`, `{"properties":{"a.b":{"$ref":"#/properties/c","title":"t"},"c":{"type":"integer"}}}`},
	{`{"properties":5,"required":"a","type":7,"enum":{},"minimum":"x"}`, `{"properties":[],"required":[1],"type":["nope"],"enum":[],"minimum":{}}`},
	{`{"$ref":"#"}`, `{"$ref":"#/$defs/%7E"}`},
	{`{"anyOf":[{"type":"string"}]}`, `{"anyOf":[{"type":"string"},{"type":"\n"},{"$ref":"\r"}],"type":["x\ny"]}`},
	{`true`, `false`},
	{`[]`, `"string"`},
	{`null`, `{}`},
}

// FuzzDiff builds two tools from arbitrary JSON schemas and checks, whatever
// they hold: nothing panics; a schema compared with itself has no change;
// every change is well formed (a real severity, a field, one-line texts);
// Diff is deterministic and sorted; the lockfile round-trips; normalizing a
// normalized schema changes nothing.
func FuzzDiff(f *testing.F) {
	for _, s := range contractSeeds {
		f.Add(s[0], s[1], "")
		f.Add(s[0], s[1], s[1])
	}
	f.Fuzz(func(t *testing.T, oldIn, newIn, newOut string) {
		old, err1 := contract.NewTool("t", "old", json.RawMessage(oldIn), nil)
		var out any
		if newOut != "" {
			out = json.RawMessage(newOut)
		}
		cur, err2 := contract.NewTool("t", "new\n", json.RawMessage(newIn), out)
		if err1 != nil || err2 != nil {
			return // not JSON: NewTool says so
		}
		a, _ := contract.NewLock([]contract.Tool{old})
		b, _ := contract.NewLock([]contract.Tool{cur})
		if d := contract.Diff(a, a); len(d) != 0 {
			t.Fatalf("a schema differs from itself: %v", d)
		}
		changes := contract.Diff(a, b)
		if again := contract.Diff(a, b); !reflect.DeepEqual(changes, again) {
			t.Fatal("Diff is not deterministic")
		}
		for i, c := range changes {
			if c.Severity < contract.Cosmetic || c.Severity > contract.Breaking || c.Tool != "t" || c.Field == "" || c.Description == "" {
				t.Fatalf("malformed change %#v", c)
			}
			if strings.ContainsAny(c.Description+c.Field+c.Before+c.After, "\n\r") {
				t.Fatalf("change is not one line: %#v", c)
			}
			if i > 0 && changes[i-1].Severity < c.Severity {
				t.Fatal("not most severe first")
			}
		}
		for _, l := range []*contract.Lock{a, b} {
			data, err := l.Marshal()
			if err != nil {
				t.Fatal(err)
			}
			back, err := contract.Parse(data)
			if err != nil {
				t.Fatalf("lockfile does not parse back: %v\n%s", err, data)
			}
			if back.Tools[0].Digest != l.Tools[0].Digest {
				t.Fatal("digest changed through the lockfile")
			}
			tool := l.Tools[0]
			again, err := contract.NewTool(tool.Name, tool.Description, tool.InputSchema, tool.OutputSchema)
			if err != nil || again.Digest != tool.Digest {
				t.Fatalf("normalization is not idempotent: %s\n%s", tool.InputSchema, again.InputSchema)
			}
		}
	})
}

package contract

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/golden"
	"github.com/selfheal/selfheal/internal/testkit/mutate"
)

// billing is a small server's tools at two versions, written the way SDKs
// emit them (keys in any order, refs, a default).
func billing(t testing.TB, v2 bool) *Lock {
	pay := `{"type":"object","properties":{"invoice_id":{"type":"string","pattern":"^inv_"},"amount":{"$ref":"#/$defs/Cents"},"currency":{"enum":["EUR","USD"],"default":"EUR"}},"required":["invoice_id","amount"],"$defs":{"Cents":{"type":"integer","minimum":0,"description":"Amount in cents"}}}`
	list := `{"type":"object","properties":{"limit":{"type":"integer","maximum":100,"default":20},"status":{"enum":["open","paid"]}}}`
	listOut := `{"type":"object","properties":{"invoices":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"total":{"type":"integer"}},"required":["id","total"]}}},"required":["invoices"]}`
	tools := []Tool{
		mustTool(t, "billing.pay", "Pay an invoice.", pay, ""),
		mustTool(t, "billing.list_invoices", "List invoices, newest first.", list, listOut),
		mustTool(t, "billing.refund", "Refund a payment.", `{"type":"object","properties":{"payment_id":{"type":"string"}},"required":["payment_id"]}`, ""),
	}
	if v2 {
		pay = strings.NewReplacer(`"minimum":0`, `"minimum":1`, `"default":"EUR"`, `"default":"USD"`, `"required":["invoice_id","amount"]`, `"required":["invoice_id","amount","currency"]`).Replace(pay)
		list = strings.NewReplacer(`"maximum":100`, `"maximum":50`, `"enum":["open","paid"]`, `"enum":["open","paid","void"]`).Replace(list)
		listOut = strings.Replace(listOut, `"required":["id","total"]`, `"required":["id"]`, 1)
		tools = []Tool{
			mustTool(t, "billing.pay", "Pay an invoice in full.", pay, ""),
			mustTool(t, "billing.list_invoices", "List invoices, newest first.", list, listOut),
			mustTool(t, "billing.void", "Void an invoice.", `{"type":"object","properties":{"invoice_id":{"type":"string"}},"required":["invoice_id"]}`, ""),
		}
	}
	return mustLock(t, tools...)
}

func TestLockfileGolden(t *testing.T) {
	for _, v := range []struct {
		file string
		v2   bool
	}{{"billing.v1.lock", false}, {"billing.v2.lock", true}} {
		data, err := billing(t, v.v2).Marshal()
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, v.file, data)
	}
}

// TestRoundTrip: Parse(Marshal(l)) is l, Marshal of that is the same bytes,
// and a lockfile with its tools shuffled and its keys reordered parses to
// the same lock.
func TestRoundTrip(t *testing.T) {
	for _, v2 := range []bool{false, true} {
		l := billing(t, v2)
		data, err := l.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if d := Diff(l, back); len(d) != 0 {
			t.Errorf("round trip changed the contract: %v", d)
		}
		for i := range l.Tools {
			if l.Tools[i].Digest != back.Tools[i].Digest || !bytes.Equal(l.Tools[i].InputSchema, back.Tools[i].InputSchema) {
				t.Errorf("tool %s differs after the round trip", l.Tools[i].Name)
			}
		}
		again, _ := back.Marshal()
		if !bytes.Equal(data, again) {
			t.Errorf("Marshal is not stable:\n%s\n%s", data, again)
		}
		// Normalizing a normalized schema changes nothing.
		for _, tool := range l.Tools {
			again, err := NewTool(tool.Name, tool.Description, tool.InputSchema, tool.OutputSchema)
			if err != nil || again.Digest != tool.Digest {
				t.Errorf("tool %s: normalization is not idempotent (%v)", tool.Name, err)
			}
		}
	}
	// Shuffled tools, keys in another order, no digests: the same lock.
	shuffled := `{"tools":[
		{"inputSchema":{"required":["payment_id"],"properties":{"payment_id":{"type":"string"}},"type":"object"},"name":"billing.refund","description":"Refund a payment."},
		{"name":"billing.pay","description":"Pay an invoice.","inputSchema":` + string(billing(t, false).Tool("billing.pay").InputSchema) + `},
		{"name":"billing.list_invoices","description":"List invoices, newest first.","inputSchema":` + string(billing(t, false).Tool("billing.list_invoices").InputSchema) + `,"outputSchema":` + string(billing(t, false).Tool("billing.list_invoices").OutputSchema) + `}
	],"version":1}`
	l, err := Parse([]byte(shuffled))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := l.Marshal()
	want, _ := billing(t, false).Marshal()
	if !bytes.Equal(got, want) {
		t.Errorf("shuffled lockfile marshals to\n%s\nwant\n%s", got, want)
	}
}

func TestFiles(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "selfheal.lock")
	l := billing(t, true)
	data, err := l.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(l, back); len(d) != 0 {
		t.Errorf("changes after Marshal/ReadFile: %v", d)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.lock")); err == nil || !strings.Contains(err.Error(), "missing.lock") {
		t.Errorf("missing file: %v", err)
	}
	os.WriteFile(path, []byte(`{"version":2,"tools":[]}`), 0o644)
	if _, err := ReadFile(path); err == nil || !strings.HasPrefix(err.Error(), path+": lockfile version 2") {
		t.Errorf("error does not start with the path: %v", err)
	}
}

func TestParseErrors(t *testing.T) {
	tool := `{"name":"a","inputSchema":{}}`
	tests := []struct{ name, in, want string }{
		{"empty", ``, "empty document: want JSON"},
		{"malformed", "{\n  \"version\": 1,\n  \"tools\": [}\n", "malformed JSON at line 3, column 13: invalid character '}' looking for beginning of value"},
		{"truncated", "{\"version\": 1,\n\"tools\": [", "malformed JSON at line 2, column 11: unexpected end of input"},
		{"trailing data", `{"version":1,"tools":[]} {}`, "malformed JSON at line 1, column 26: more data after the document"},
		{"not an object", `[]`, "wrong JSON type at line 1, column 1: value is a JSON array"},
		{"no version", `{"tools":[]}`, `not a selfheal lockfile: no "version"`},
		{"future version", `{"version":2,"tools":[]}`, "lockfile version 2 is not supported (this selfheal reads version 1)"},
		{"version as string", `{"version":"1","tools":[]}`, "wrong JSON type at line 1, column 14: version is a JSON string, want int"},
		{"unknown field", `{"version":1,"tools":[],"generated":"today"}`, `unknown field "generated"`},
		{"unknown tool field", `{"version":1,"tools":[{"name":"a","inputSchema":{},"title":"A"}]}`, `tools: unknown field "title"`},
		{"no name", `{"version":1,"tools":[{"inputSchema":{}}]}`, "tools[0]: no name"},
		{"no input schema", `{"version":1,"tools":[{"name":"a"}]}`, `tool "a": no inputSchema`},
		{"duplicate", `{"version":1,"tools":[` + tool + `,` + tool + `]}`, `contract: two tools named "a"`},
		{"wrong digest", `{"version":1,"tools":[{"name":"a","digest":"sha256:00","inputSchema":{}}]}`, `tool "a": digest sha256:00 does not match its contract`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.in))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
	if l, err := Parse([]byte(`{"version":1,"tools":null}`)); err != nil || len(l.Tools) != 0 {
		t.Errorf("null tools: %v %v", l, err)
	}
}

func TestNewTool(t *testing.T) {
	// The map[string]any an MCP client decodes, and the same schema as text
	// with other spellings: one digest.
	m := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": []any{"integer"}, "maximum": 10.0}}, "required": []any{"n", "n"}}
	a, err := NewTool("t", "d", m, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := NewTool("t", "d", []byte(`{"required":["n"],"properties":{"n":{"maximum":1e1,"type":"integer"}},"type":"object"}`), json.RawMessage("null"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Digest != b.Digest || string(a.InputSchema) != `{"properties":{"n":{"maximum":10,"type":"integer"}},"required":["n"],"type":"object"}` || b.OutputSchema != nil {
		t.Errorf("got %s %s and %s %s", a.Digest, a.InputSchema, b.Digest, b.InputSchema)
	}
	if !strings.HasPrefix(a.Digest, "sha256:") || len(a.Digest) != len("sha256:")+64 {
		t.Errorf("digest %q", a.Digest)
	}
	none, _ := NewTool("t", "", nil, nil)
	if string(none.InputSchema) != `{}` {
		t.Errorf("nil input schema stored as %s", none.InputSchema)
	}
	for _, bad := range []struct {
		name string
		in   any
		want string
	}{
		{"", nil, "a tool needs a name"},
		{"t", []byte(`{"type":`), `tool "t": input schema: malformed JSON at line 1, column 9`},
		{"t", func() {}, `tool "t": input schema: json: unsupported type`},
	} {
		if _, err := NewTool(bad.name, "", bad.in, nil); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("NewTool(%q, %v): %v, want %q", bad.name, bad.in, err, bad.want)
		}
	}
	if _, err := NewLock([]Tool{a, a}); err == nil {
		t.Error("NewLock accepted two tools with one name")
	}
	if l := mustLock(t, a); l.Tool("t") == nil || l.Tool("u") != nil || (*Lock)(nil).Tool("t") != nil {
		t.Error("Lock.Tool")
	}
}

// TestNormalize shows the compared form of schemas with references.
func TestNormalize(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"ref inlined, defs dropped", `{"$defs":{"S":{"type":"string","minLength":1}},"properties":{"a":{"$ref":"#/$defs/S","description":"A"}}}`,
			`{"properties":{"a":{"description":"A","minLength":1,"type":"string"}}}`},
		{"draft 7 definitions, escaped pointer", `{"definitions":{"a/b":{"type":"integer"}},"items":{"$ref":"#/definitions/a~1b"}}`,
			`{"items":{"type":"integer"}}`},
		{"ref with a validating sibling stays", `{"$defs":{"S":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/S","maxLength":3}}}`,
			`{"$defs":{"S":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/S","maxLength":3}}}`},
		{"recursive ref stays", `{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N"}}}},"properties":{"head":{"$ref":"#/$defs/N"}}}`,
			`{"$defs":{"N":{"properties":{"next":{"$ref":"#/$defs/N"}}}},"properties":{"head":{"$ref":"#/$defs/N"}}}`},
		{"root ref stays", `{"properties":{"self":{"$ref":"#"}}}`, `{"properties":{"self":{"$ref":"#"}}}`},
		{"remote ref stays", `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`, `{"properties":{"a":{"$ref":"https://example.com/s.json"}}}`},
		{"dangling ref stays", `{"properties":{"a":{"$ref":"#/$defs/none"}}}`, `{"properties":{"a":{"$ref":"#/$defs/none"}}}`},
		{"false target", `{"$defs":{"F":false},"properties":{"a":{"$ref":"#/$defs/F","title":"x"}}}`, `{"properties":{"a":false}}`},
		{"types and required", `{"type":["string","null","string"],"required":["b","a","b"],"properties":{"required":{"type":["integer"]}}}`,
			`{"properties":{"required":{"type":"integer"}},"required":["a","b"],"type":["null","string"]}`},
		{"numbers", `{"enum":[1.0,-0,1E2,0.10,12345678901234567890,1e400]}`, `{"enum":[1,0,100,0.1,12345678901234567000,1e400]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := mustTool(t, "t", "", tt.in, "")
			if string(tool.InputSchema) != tt.want {
				t.Errorf("got  %s\nwant %s", tool.InputSchema, tt.want)
			}
		})
	}
}

// TestExpansionBudget: references that double at every level are not
// expanded without bound, and the result is stable.
func TestExpansionBudget(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"$defs":{`)
	for i := range 30 {
		if i > 0 {
			b.WriteString(",")
		}
		next := `{"type":"string"}`
		if i < 29 {
			next = `{"type":"array","prefixItems":[{"$ref":"#/$defs/d` + itoa(i+1) + `"},{"$ref":"#/$defs/d` + itoa(i+1) + `"}]}`
		}
		b.WriteString(`"d` + itoa(i) + `":` + next)
	}
	b.WriteString(`},"properties":{"x":{"$ref":"#/$defs/d0"}}}`)
	tool := mustTool(t, "t", "", b.String(), "")
	if len(tool.InputSchema) > 1<<16 {
		t.Fatalf("schema grew to %d bytes", len(tool.InputSchema))
	}
	again := mustTool(t, "t", "", string(tool.InputSchema), "")
	if again.Digest != tool.Digest {
		t.Error("not idempotent after the budget ran out")
	}
}

func itoa(i int) string { return strings.TrimSpace(string(rune('0'+i/10)) + string(rune('0'+i%10))) }

// TestOwnsItsMemory: a Tool or Lock never shares memory with what its
// caller passed in. Each case builds one from its input, changes everything
// the input reaches (mutate.All), and compares the result with its text
// taken before the change.
func TestOwnsItsMemory(t *testing.T) {
	const in = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`
	const out = `{"type":"object","properties":{"ok":{"type":"boolean"}}}`
	tests := []struct {
		name  string
		input func() any // what the caller holds
		build func(t *testing.T, input any) *Lock
	}{
		{"NewLock, schemas as built", func() any {
			return []Tool{mustTool(t, "a", "A", in, out), mustTool(t, "b", "", in, "")}
		}, func(t *testing.T, input any) *Lock { return mustLock(t, input.([]Tool)...) }},
		{"NewLock, schemas the caller wrote", func() any {
			return []Tool{{Name: "a", InputSchema: json.RawMessage(in), OutputSchema: json.RawMessage(out)}}
		}, func(t *testing.T, input any) *Lock { return mustLock(t, input.([]Tool)...) }},
		{"NewTool, a decoded schema", func() any {
			var m map[string]any
			if err := json.Unmarshal([]byte(in), &m); err != nil {
				t.Fatal(err)
			}
			return m
		}, func(t *testing.T, input any) *Lock {
			tool, err := NewTool("a", "", input, nil)
			if err != nil {
				t.Fatal(err)
			}
			return mustLock(t, tool)
		}},
		{"NewTool, schema text", func() any { return []byte(in) }, func(t *testing.T, input any) *Lock {
			tool, err := NewTool("a", "", input, json.RawMessage(out))
			if err != nil {
				t.Fatal(err)
			}
			return mustLock(t, tool)
		}},
		{"Parse", func() any {
			data, err := mustLock(t, mustTool(t, "a", "A", in, out)).Marshal()
			if err != nil {
				t.Fatal(err)
			}
			return data
		}, func(t *testing.T, input any) *Lock {
			l, err := Parse(input.([]byte))
			if err != nil {
				t.Fatal(err)
			}
			return l
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			input := tt.input()
			l := tt.build(t, input)
			before := lockText(l)
			mutate.All(input)
			if after := lockText(l); after != before {
				t.Errorf("the lock changed with its caller's input:\n got %s\nwant %s", after, before)
			}
		})
	}
}

// lockText is every field of every tool of l, the schemas as text.
func lockText(l *Lock) string {
	var b strings.Builder
	for _, tool := range l.Tools {
		fmt.Fprintf(&b, "%s %s %q %s %s\n", tool.Name, tool.Digest, tool.Description, tool.InputSchema, tool.OutputSchema)
	}
	return b.String()
}

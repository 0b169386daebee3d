package hostile

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/envelope"
)

// Schema is the input schema the cases are sent to: closed and open objects,
// a typed map, an array of objects, an enum and a recursive union.
const Schema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 2},
    "role": {"enum": ["admin", "member", "viewer"]},
    "labels": {"type": "object", "additionalProperties": {"type": "string"}},
    "items": {"type": "array", "items": {"type": "object", "properties": {"qty": {"type": "integer"}}, "required": ["qty"]}},
    "tree": {"anyOf": [{"type": "integer"}, {"type": "object", "properties": {"a": {"$ref": "#/properties/tree"}}}]}
  },
  "required": ["name"],
  "additionalProperties": false
}`

// Args is Schema as a Go struct.
type Args struct {
	Name   string            `json:"name"`
	Role   string            `json:"role,omitempty"`
	Labels map[string]string `json:"labels,omitempty"`
	Items  []struct {
		Qty int `json:"qty"`
	} `json:"items,omitempty"`
	Tree any `json:"tree,omitempty"`
}

// Case is one hostile call.
type Case struct {
	Name string
	// Args are the arguments sent.
	Args []byte
	// Issues is how many issues the call has in all, shown or counted in
	// the note on omitted ones; 0 when it differs between adapters.
	Issues int
	// Want is text the validation_error must hold.
	Want string
	// Depth is the nesting depth of Args when it is deep, else 0.
	Depth int
	// Overflow says Args hold numbers no float64 holds: a reader that
	// decodes numbers as float64 (mcp-go) refuses the whole message.
	Overflow bool
}

// BigSize is the size of the cases' huge strings.
const BigSize = 10 << 20

// Cases returns the table. Each call builds its huge arguments anew.
func Cases() []Case {
	big := strings.Repeat("k", BigSize)
	return []Case{
		{Name: "10 MiB value", Args: obj(`"name":1,"role":"` + big + `"`), Issues: 2, Want: "10485760 bytes"},
		{Name: "10 MiB unknown key", Args: obj(`"name":"Ada","` + big + `":1`), Issues: 1, Want: "10485760 bytes"},
		{Name: "10 MiB key on a failing path", Args: obj(`"name":"Ada","labels":{"` + big + `":1}`), Issues: 1, Want: "10485760 bytes"},
		{Name: "100k unknown keys", Args: obj(`"name":"Ada",` + repeat(100000, func(i int) string { return `"x` + strconv.Itoa(i) + `":1` })), Issues: 1, Want: "and 99990 more"},
		{Name: "100k invalid items", Args: obj(`"name":"Ada","items":[` + repeat(100000, func(int) string { return `{"qty":"1"}` }) + `]`), Issues: 100000, Want: "and 99980 more"},
		{Name: "10k-deep nesting", Args: obj(`"name":"Ada","tree":` + strings.Repeat(`{"a":`, 10000) + `1` + strings.Repeat(`}`, 10000)), Issues: 1, Want: "nesting depth", Depth: 10001},
		// go-sdk ends the session on a message deeper than 1000.
		{Name: "990-deep nesting", Args: obj(`"name":"Ada","tree":` + strings.Repeat(`{"a":`, 990) + `1` + strings.Repeat(`}`, 990)), Issues: 1, Want: "nesting depth", Depth: 991},
		{Name: "10k-deep arrays", Args: []byte(strings.Repeat(`[`, 10000) + strings.Repeat(`]`, 10000)), Issues: 1, Depth: 10000},
		{Name: "invalid UTF-8 in keys", Args: obj("\"name\":\"Ada\",\"\xff\xfe\":1,\"labels\":{\"\xc3\":2}"), Issues: 2, Want: "\ufffd"}, // JSON decoding replaces invalid UTF-8
		{Name: "markup in keys and values", Args: obj(`"name":"]]>","role":"</field>","</field>":1,"labels":{"]]><x>":1}`), Issues: 3, Want: "]]&gt;"},
		{Name: "huge numbers", Args: obj(`"name":1e1000000,"role":-1e1000000,"items":[{"qty":1e1000000}]`), Issues: 2, Want: "1e1000000", Overflow: true},
		{Name: "10 MiB number", Args: obj(`"name":"Ada","role":` + strings.Repeat("9", BigSize)), Issues: 1, Want: "…", Overflow: true},
	}
}

func obj(members string) []byte { return []byte("{" + members + "}") }

func repeat(n int, f func(int) string) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f(i))
	}
	return b.String()
}

// CheckResult checks an MCP integration's answer to the hostile call tc:
// isError, a validation_error of at most 20 lines within the default 4 KiB
// of lines plus the envelope and its always-shown first line, and
// structured issues (structuredContent or _meta) bounded the same way.
func CheckResult(t *testing.T, tc Case, text string, isError bool, structured any) {
	t.Helper()
	const bound = 8 << 10
	d, err := envelope.Parse(text)
	if !isError || err != nil || d.Validation == nil {
		t.Errorf("%s: isError %v, not a validation_error (%v):\n%.1000s", tc.Name, isError, err, text)
		return
	}
	if len(text) > bound || len(d.Validation.Fields) > 20 {
		t.Errorf("%s: %d bytes, %d lines:\n%.3000s", tc.Name, len(text), len(d.Validation.Fields), text)
	}
	data, err := json.Marshal(structured)
	if err != nil || len(data) > bound || !strings.HasPrefix(string(data), `{"issues":[{`) {
		t.Errorf("%s: structured issues of %d bytes (%v): %.1000s", tc.Name, len(data), err, data)
	}
}

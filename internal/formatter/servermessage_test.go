package formatter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/formatter"
)

// zodUnion is what a TypeScript SDK server answers to a union none of
// whose five alternatives took the value: 1,748 characters, which the
// first cut (at 1,000) left with three alternatives.
var zodUnion = "MCP error -32602: Input validation error: Invalid arguments for tool create_channel: " + func() string {
	var b strings.Builder
	b.WriteString("[\n  {\n    \"code\": \"invalid_union\",\n    \"errors\": [")
	for i, kind := range []string{"webhook", "email", "slack", "pagerduty", "opsgenie"} {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "\n      [\n        {\n          \"code\": \"invalid_value\",\n          \"values\": [\n            \"%s\"\n          ],\n          \"path\": [\n            \"kind\"\n          ],\n          \"message\": \"Invalid input: expected \\\"%s\\\" (the kind of the channel names the alternative that applies there)\"\n        }\n      ]", kind, kind)
	}
	b.WriteString("\n    ],\n    \"path\": [\n      \"channel\"\n    ],\n    \"message\": \"Invalid input\"\n  }\n]")
	return b.String()
}()

func TestServerMessage(t *testing.T) {
	if n := len(zodUnion); n != 1748 {
		t.Fatalf("the zod message has %d characters, want 1748", n)
	}
	en := formatter.New(formatter.DefaultOptions())
	ja := formatter.New(formatter.Options{Catalog: catalog.Match("ja")})
	zod := "MCP error -32602: Invalid arguments for tool write_file: [\n  {\n    \"code\": \"invalid_type\",\n    \"path\": [\n      \"content\"\n    ]\n  }\n]\n"
	for _, tc := range []struct {
		name   string
		f      *formatter.Formatter
		msg    string
		budget int
		want   string
	}{
		{"as it is", en, "Error: ENOENT: no such file or directory, open '/tmp/x'", 0, "Error: ENOENT: no such file or directory, open '/tmp/x'"},
		{"trimmed", en, " \r\n\tMCP error -32602: bad\n\n", 0, "MCP error -32602: bad"},
		{"only spaces", en, " \n\t ", 0, ""},
		{"multi-line on one line", en, zod, 0,
			`MCP error -32602: Invalid arguments for tool write_file: [\n  {\n    "code": "invalid_type",\n    "path": [\n      "content"\n    ]\n  }\n]`},
		{"backslashes and quotes kept", en, `path "C:\tmp" 'x'`, 0, `path "C:\tmp" 'x'`},
		{"controls shown", en, "a\x00b\x1bc\rd\u2028e\u202Ef\xffg\u0085h", 0, `a\u0000b\u001bc\rd\u2028e\u202ef\ufffdg\u0085h`},
		{"XML left to the envelope", en, "]]> & <x/>", 0, "]]> & <x/>"},
		{"cut, saying how much", en, strings.Repeat("a", 5000), 4, "aaaa… (4996 characters cut)"},
		{"cut at the byte budget", en, strings.Repeat("a", 4097), 0, strings.Repeat("a", 4096) + "… (1 character cut)"},
		{"the byte budget fits", en, strings.Repeat("a", 4096), 0, strings.Repeat("a", 4096)},
		{"a zod message kept whole", en, zodUnion, 0, strings.ReplaceAll(zodUnion, "\n", `\n`)},
		{"bytes, not characters", en, "日本語のエラーです", 9, "日本語… (6 characters cut)"},
		{"an escape is not split", en, "a\nb\nc", 3, `a\n… (3 characters cut)`},
		{"escapes take their bytes", en, "\x01\x02\x03", 12, `\u0001\u0002… (1 character cut)`},
		{"said in the formatter's language", ja, strings.Repeat("a", 50), 4, "aaaa…（46文字省略）"},
		{"huge: what was cut in bytes", en, strings.Repeat("é", 1<<16), 4, "éé… (131068 bytes cut)"},
		{"huge, at the default", en, strings.Repeat("x", 1<<20), 0, strings.Repeat("x", 4096) + "… (1044480 bytes cut)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.f.ServerMessage(tc.msg, tc.budget)
			if got != tc.want {
				t.Fatalf("ServerMessage(%.80q, %d)\n= %q\nwant %q", tc.msg, tc.budget, got, tc.want)
			}
			// In the envelope it is one line, and it reads back exactly.
			out := envelope.ValidationError{Action: "a", ServerMessage: got}.String()
			if got != "" && strings.Count(out, "\n") != 3 {
				t.Errorf("not one line per element:\n%s", out)
			}
			doc, err := envelope.Parse(out)
			if err != nil || doc.Validation.ServerMessage != got {
				t.Errorf("Parse = %+v, %v", doc.Validation, err)
			}
		})
	}
}

func ExampleFormatter_ServerMessage() {
	f := formatter.New(formatter.DefaultOptions())
	fmt.Println(f.ServerMessage("Traceback (most recent call last):\n  ValueError: thought_number\n", 0))
	fmt.Println(f.ServerMessage(strings.Repeat("a", 5000), 4))
	// Output:
	// Traceback (most recent call last):\n  ValueError: thought_number
	// aaaa… (4996 characters cut)
}

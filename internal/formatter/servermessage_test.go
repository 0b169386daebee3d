package formatter_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/locales"
)

func TestServerMessage(t *testing.T) {
	en := formatter.New(formatter.DefaultOptions())
	ja := formatter.New(formatter.Options{Catalog: locales.Match("ja")})
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
		{"cut with its size", en, strings.Repeat("a", 5000), 4, "aaaa… (5000 characters)"},
		{"cut at the default", en, strings.Repeat("a", 1001), 0, strings.Repeat("a", 1000) + "… (1001 characters)"},
		{"the default fits", en, strings.Repeat("a", 1000), 0, strings.Repeat("a", 1000)},
		{"cut between runes", en, "日本語のエラーです", 3, "日本語… (9 characters)"},
		{"an escape counts one", en, "a\nb\nc", 3, `a\nb… (5 characters)`},
		{"size in the formatter's language", ja, strings.Repeat("a", 50), 4, "aaaa…（50文字）"},
		{"huge: size in bytes", en, strings.Repeat("é", 1<<16), 2, "éé… (131072 bytes)"},
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
	// aaaa… (5000 characters)
}

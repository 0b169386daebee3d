package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/selfheal/selfheal/envelope"
)

// exampleServer builds examples/mcpserver once for the tests of call.
var exampleServer = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "selfheal-call")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, "../../examples/mcpserver").CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// selfheal call prints what the model reads, parsed, and exits 0 for a
// success (a warning included), 1 for a failed call, 2 for a usage or
// transport error.
func TestCall(t *testing.T) {
	bin, err := exampleServer()
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(serverEnv, "plain") // the test binary, run as a server, is a plain go-sdk server
	for _, tc := range []struct {
		name   string
		flags  []string
		server string
		tool   string
		args   string
		code   int
	}{
		{"validation_error", nil, bin, "billing.get_invoice", `{"id":5,"extra":true}`, 1},
		{"validation_error-json", []string{"--json"}, bin, "billing.get_invoice", `{"id":5}`, 1},
		{"not_found", nil, bin, "billing.get_invoice", `{"id":"inv_1234_5678"}`, 1},
		{"not_found-json", []string{"--json"}, bin, "billing.get_invoice", `{"id":"inv_1234_5678"}`, 1},
		{"warning", nil, bin, "billing.list_invoices", `{"customer_id":"cus_Ab12Cd34","page_size":1}`, 0},
		{"success", nil, bin, "billing.get_invoice", `{"id":"inv_2026_0001"}`, 0},
		{"plain-error", nil, self, "fail", `{}`, 1},
		{"rpc-error", nil, self, "nope", `{}`, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"call"}, tc.flags...)
			args = append(args, "--", tc.server, tc.tool, "-")
			code := run(args, strings.NewReader(tc.args), &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			checkGolden(t, "call/"+tc.name, stdout.Bytes())
		})
	}
}

// revisionServer builds testdata/call/server once: a go-sdk v1.8 server
// that says on standard error in which revision it serves each call.
var revisionServer = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "selfheal-call")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "server")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/call/server").CombinedOutput(); err != nil {
		return "", &exec.ExitError{Stderr: out}
	}
	return bin, nil
})

// selfheal call speaks go-sdk v1.8's client's revision: 2026-07-28 with a
// server that speaks it, 2025-11-25 with one limited to it or when
// --protocol-version asks for it, and prints the same answers in both. A
// tool that asks for input first is reported as such (exit 1): in
// 2026-07-28 the input_required result, listed; in 2025-11-25 the server
// asks selfheal call itself (elicitation/create), which refuses, and the
// server's JSON-RPC error is printed.
func TestCallRevisions(t *testing.T) {
	bin, err := revisionServer()
	if err != nil {
		t.Fatal(err)
	}
	for _, setup := range []struct {
		name   string
		flags  []string
		server []string
		rev    string
	}{
		{"2026", nil, []string{bin}, "2026-07-28"},
		{"server limited to 2025", nil, []string{bin, "-versions", "2025-11-25"}, "2025-11-25"},
		{"pinned to 2025", []string{"--protocol-version", "2025-11-25"}, []string{bin}, "2025-11-25"},
		{"pinned to 2026", []string{"--protocol-version", "2026-07-28"}, []string{bin}, "2026-07-28"},
	} {
		for _, tc := range []struct {
			name, tool, args string
			code             int
			golden           string // by revision: the same answer in both unless told
		}{
			{"validation_error", "invoice.get", `{"id":5,"extra":true}`, 1, "call/revision-validation_error"},
			{"not_found", "invoice.get", `{"id":"inv_2"}`, 1, "call/revision-not_found"},
			{"success", "invoice.get", `{"id":"inv_1"}`, 0, "call/revision-success"},
			{"input_required", "invoice.void", `{}`, 1, "call/revision-input_required." + setup.rev},
			{"input_required-json", "invoice.void", `{}`, 1, "call/revision-input_required-json." + setup.rev},
		} {
			t.Run(setup.name+"/"+tc.name, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				args := append([]string{"call"}, setup.flags...)
				if strings.HasSuffix(tc.name, "-json") {
					args = append(args, "--json")
				}
				args = append(append(append(args, "--"), setup.server...), tc.tool, "-")
				if code := run(args, strings.NewReader(tc.args), &stdout, &stderr); code != tc.code {
					t.Errorf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
				}
				if want := "server: tools/call " + tc.tool + " in " + setup.rev + "\n"; !strings.Contains(stderr.String(), want) {
					t.Errorf("stderr:\n%s\nwant the call served in %s", stderr.String(), setup.rev)
				}
				checkGolden(t, tc.golden, stdout.Bytes())
			})
		}
	}
}

// selfheal call -h says which revisions it speaks and how to choose.
func TestCallHelp(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run([]string{"call", "-h"}, strings.NewReader(""), &stdout, &stderr); code != 0 || stderr.Len() != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	for _, want := range []string{
		"It speaks MCP 2026-07-28 (server/discover, then requests that each carry\nthe revision) and falls back to 2025-11-25 (initialize)",
		"-protocol-version string\n    \tthe MCP revision to ask for: 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05",
		"(resultType input_required: an elicitation, a sampling, roots)\nis printed, not answered",
	} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("-h does not say %q:\n%s", want, stdout.String())
		}
	}
}

func TestCallUsage(t *testing.T) {
	dir := t.TempDir()
	notJSON := filepath.Join(dir, "args.json")
	if err := os.WriteFile(notJSON, []byte("{id:"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"call"}, "selfheal call: want a server command, a tool and an arguments file after --: selfheal call [--json] [--timeout D] [--protocol-version V] -- COMMAND [ARG...] TOOL ARGS.json\n"},
		{[]string{"call", "--", "srv", "tool"}, "selfheal call: want a server command, a tool and an arguments file after --: selfheal call [--json] [--timeout D] [--protocol-version V] -- COMMAND [ARG...] TOOL ARGS.json\n"},
		{[]string{"call", "srv", "--", "a", "b", "c"}, "selfheal call: unexpected argument \"srv\" before --: selfheal call [--json] [--timeout D] [--protocol-version V] -- COMMAND [ARG...] TOOL ARGS.json\n"},
		{[]string{"call", "--timeout", "0s", "--", "a", "b", "c"}, "selfheal call: --timeout must be positive, not 0s\n"},
		{[]string{"call", "--protocol-version", "2026-01-01", "--", "a", "b", "c"}, "selfheal call: --protocol-version \"2026-01-01\": want one of 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05\n"},
		{[]string{"call", "--", "srv", "tool", notJSON}, "selfheal call: " + notJSON + ": the arguments are not JSON\n"},
		{[]string{"call", "--", "srv", "tool", filepath.Join(dir, "missing.json")}, "selfheal call: open " + filepath.Join(dir, "missing.json") + ": no such file or directory\n"},
		{[]string{"call", "--", filepath.Join(dir, "no-server"), "tool", "-"}, "selfheal call: starting " + filepath.Join(dir, "no-server") + ": fork/exec " + filepath.Join(dir, "no-server") + ": no such file or directory\n"},
		// A server that cannot be reached has no answer to print as JSON:
		// --json changes nothing there.
		{[]string{"call", "--json", "--", filepath.Join(dir, "no-server"), "tool", "-"}, "selfheal call: starting " + filepath.Join(dir, "no-server") + ": fork/exec " + filepath.Join(dir, "no-server") + ": no such file or directory\n"},
	} {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, strings.NewReader("{}"), &stdout, &stderr); code != 2 || stderr.String() != tc.want || stdout.Len() != 0 {
			t.Errorf("%q: exit %d, stderr %q, stdout %q\nwant exit 2, %q", tc.args, code, stderr.String(), stdout.String(), tc.want)
		}
	}
}

// selfheal call --json: every envelope carries its code, the
// validation_error's VALIDATION_ERROR as envelope.CallError reads it, so
// that a script switches on .code of whichever envelope is there; an
// answer that is no envelope has none.
func TestCallJSON(t *testing.T) {
	for _, tc := range []struct {
		name string
		out  callOutput
		code int
		want string
	}{
		{"validation_error", callOutput{IsError: true, Text: "<validation_error/>", Failed: &envelope.CallError{
			Code: envelope.ValidationErrorCode, Severity: envelope.SeverityError, Action: "users.create",
			Fields: []envelope.Field{{Name: "email", Text: "Required field is missing."}}, Recovery: "Fix the fields above.",
		}}, 1, `{
  "isError": true,
  "text": "<validation_error/>",
  "validation_error": {
    "code": "VALIDATION_ERROR",
    "action": "users.create",
    "fields": [
      {
        "name": "email",
        "text": "Required field is missing."
      }
    ],
    "recovery": "Fix the fields above."
  }
}
`},
		{"validation_error explaining a rejection", callOutput{IsError: true, Text: "<validation_error/>", Failed: &envelope.CallError{
			Code: envelope.ValidationErrorCode, Severity: envelope.SeverityError, Action: "write_file",
			Fields:        []envelope.Field{{Name: "content", Text: "Required field is missing."}},
			ServerMessage: "MCP error -32602: Invalid arguments for tool write_file", Recovery: "Fix the fields above.",
		}}, 1, `{
  "isError": true,
  "text": "<validation_error/>",
  "validation_error": {
    "code": "VALIDATION_ERROR",
    "action": "write_file",
    "fields": [
      {
        "name": "content",
        "text": "Required field is missing."
      }
    ],
    "server_message": "MCP error -32602: Invalid arguments for tool write_file",
    "recovery": "Fix the fields above."
  }
}
`},
		{"tool_error", callOutput{IsError: true, Text: "<tool_error/>", Failed: &envelope.CallError{
			Code: envelope.NotFound, Severity: envelope.SeverityError, Message: "No invoice with that ID",
		}}, 1, `{
  "isError": true,
  "text": "<tool_error/>",
  "tool_error": {
    "code": "NOT_FOUND",
    "severity": "error",
    "message": "No invoice with that ID"
  }
}
`},
		{"warning", callOutput{Text: "{}<tool_error/>", Warning: &envelope.CallError{
			Code: envelope.Deprecated, Severity: envelope.SeverityWarning, Message: "page_size is deprecated",
		}}, 0, `{
  "isError": false,
  "text": "{}<tool_error/>",
  "tool_error": {
    "code": "DEPRECATED",
    "severity": "warning",
    "message": "page_size is deprecated"
  }
}
`},
		{"success", callOutput{Text: `{"id":"inv_1"}`}, 0, `{
  "isError": false,
  "text": "{\"id\":\"inv_1\"}"
}
`},
		{"error result without envelope", callOutput{IsError: true, Text: "write failed: disk full"}, 1, `{
  "isError": true,
  "text": "write failed: disk full"
}
`},
		{"JSON-RPC error", callOutput{RPCError: &rpcError{Code: -32602, Message: `unknown tool "nope"`}}, 1, `{
  "isError": false,
  "rpc_error": {
    "code": -32602,
    "message": "unknown tool \"nope\""
  }
}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if code := printCall(&b, tc.out, true); code != tc.code {
				t.Errorf("exit %d, want %d", code, tc.code)
			}
			if b.String() != tc.want {
				t.Errorf("got\n%s\nwant\n%s", b.String(), tc.want)
			}
		})
	}
}

// selfheal call in front of a proxy that explained a server's rejection
// shows what the server said, where the model reads it: after the fields.
func TestCallServerMessage(t *testing.T) {
	out := callOutput{IsError: true, Failed: &envelope.CallError{
		Code: envelope.ValidationErrorCode, Severity: envelope.SeverityError, Action: "write_file",
		Fields:        []envelope.Field{{Name: "content", Text: "Required field is missing."}},
		ServerMessage: "MCP error -32602: Invalid arguments for tool write_file", Recovery: "Fix the fields above.",
	}}
	var b bytes.Buffer
	if code := printCall(&b, out, false); code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want := `VALIDATION_ERROR write_file
  content: Required field is missing.
server_message: MCP error -32602: Invalid arguments for tool write_file
recovery: Fix the fields above.
`
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

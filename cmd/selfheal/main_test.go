package main

import (
	"bytes"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/testkit/golden"

	"github.com/selfheal/selfheal/envelope"
)

const (
	usersSchema   = "../../examples/users.create.schema.json"
	usersBad      = "../../examples/users.create.bad.json"
	usersGood     = "../../examples/users.create.good.json"
	billingSchema = "../../examples/billing.list_invoices.schema.json"
	billingBad    = "../../examples/billing.list_invoices.bad.json"
)

// TestCheck runs the command as a user would, on the shipped example files
// and on broken inputs, checking exit status, standard output (golden) and
// the one-line error on standard error.
func TestCheck(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		stdin  string
		code   int
		golden string // expected stdout in testdata/<golden>.golden
		stderr string // a fragment of the expected stderr
	}{
		{name: "users bad", args: []string{"check", "--schema", usersSchema, "--args", usersBad}, code: 1, golden: "users.bad"},
		{name: "users bad ja", args: []string{"check", "--schema", usersSchema, "--args", usersBad, "--locale", "ja-JP", "--examples=false"}, code: 1, golden: "users.bad.ja"},
		{name: "users bad json", args: []string{"check", "--schema", usersSchema, "--args", usersBad, "--json"}, code: 1, golden: "users.bad.json"},
		{name: "users good", args: []string{"check", "--schema", usersSchema, "--args", usersGood}, code: 0, golden: "empty"},
		{name: "billing bad", args: []string{"check", "--schema", billingSchema, "--args", billingBad, "--action", "billing.list_invoices"}, code: 1, golden: "billing.bad"},
		{name: "stdin", args: []string{"check", "--schema", usersSchema, "--args", "-"}, stdin: `{"name":"Ada","email":"x","role":"admin"}`, code: 1, golden: "stdin"},
		{name: "users bad v5", args: []string{"check", "--schema", usersSchema, "--args", usersBad, "--engine", "v5"}, code: 1, golden: "users.bad"},
		{name: "billing bad v5", args: []string{"check", "--schema", billingSchema, "--args", billingBad, "--engine", "v5", "--action", "billing.list_invoices"}, code: 1, golden: "billing.bad"},
		{name: "uncompilable v5", args: []string{"check", "--schema", "testdata/uncompilable.schema.json", "--args", usersBad, "--engine", "v5"}, code: 2, stderr: "testdata/uncompilable.schema.json:"},
		{name: "draft 7", args: []string{"check", "--schema", usersSchema, "--args", usersGood, "--draft", "7"}, code: 0, golden: "empty"},

		{name: "no command", args: nil, code: 2, stderr: "usage: selfheal"},
		{name: "unknown command", args: []string{"lint"}, code: 2, stderr: `unknown command "lint"`},
		{name: "missing flags", args: []string{"check"}, code: 2, stderr: "--schema and --args are required"},
		{name: "unknown flag", args: []string{"check", "--schema", usersSchema, "--args", usersBad, "--fast"}, code: 2, stderr: "flag provided but not defined: -fast"},
		{name: "bad engine", args: []string{"check", "--schema", usersSchema, "--args", usersBad, "--engine", "v7"}, code: 2, stderr: "--engine must be v6 or v5"},
		{name: "bad draft", args: []string{"check", "--schema", usersSchema, "--args", usersBad, "--draft", "3"}, code: 2, stderr: "--draft must be"},
		{name: "missing file", args: []string{"check", "--schema", "testdata/nope.json", "--args", usersBad}, code: 2, stderr: "no such file"},
		{name: "broken schema", args: []string{"check", "--schema", "testdata/broken.schema.json", "--args", usersBad}, code: 2, stderr: "testdata/broken.schema.json: malformed JSON at line 2, column 1"},
		{name: "trailing data", args: []string{"check", "--schema", "testdata/trailing.json", "--args", usersBad}, code: 2, stderr: "line 3, column 1: more data after the document"},
		{name: "bad args", args: []string{"check", "--schema", usersSchema, "--args", "testdata/bad.args.json"}, code: 2, stderr: "testdata/bad.args.json: malformed JSON at line 1, column 9"},
		{name: "empty stdin", args: []string{"check", "--schema", usersSchema, "--args", "-"}, code: 2, stderr: "standard input: empty document"},
		{name: "uncompilable", args: []string{"check", "--schema", "testdata/uncompilable.schema.json", "--args", usersBad}, code: 2, stderr: "testdata/uncompilable.schema.json:"},
		{name: "extra argument", args: []string{"check", "--schema", usersSchema, "--args", usersBad, "more"}, code: 2, stderr: `unexpected argument "more"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, strings.NewReader(tt.stdin), &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout.String(), stderr.String())
			}
			if tt.stderr != "" {
				if !strings.Contains(stderr.String(), tt.stderr) {
					t.Errorf("stderr %q does not mention %q", stderr.String(), tt.stderr)
				}
				if tt.code == 2 && tt.name != "no command" && strings.Count(strings.TrimSpace(stderr.String()), "\n") != 0 {
					t.Errorf("stderr is not one line: %q", stderr.String())
				}
				return
			}
			if stderr.Len() != 0 {
				t.Errorf("unexpected stderr: %s", stderr.String())
			}
			checkGolden(t, tt.golden, stdout.Bytes())
			if code == 1 && !strings.Contains(tt.name, "json") {
				if _, err := envelope.Parse(stdout.String()); err != nil {
					t.Errorf("output does not parse: %v", err)
				}
			}
		})
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden.Check(t, name+".golden", got)
}

// -h prints a command's usage and flags on stdout and exits 0.
func TestHelp(t *testing.T) {
	for cmd, flag := range map[string]string{"check": "-schema", "lock": "-out", "diff": "-fail-on", "call": "-json"} {
		var stdout, stderr bytes.Buffer
		if code := run([]string{cmd, "-h"}, strings.NewReader(""), &stdout, &stderr); code != 0 || stderr.Len() != 0 {
			t.Errorf("%s -h: exit %d, stderr %q", cmd, code, stderr.String())
		}
		if out := stdout.String(); !strings.HasPrefix(out, "usage: selfheal "+cmd) || !strings.Contains(out, flag) {
			t.Errorf("%s -h printed %q", cmd, out)
		}
	}
}

// TestEngineDefaults: the proxy flags' defaults are the engine's own.
func TestEngineDefaults(t *testing.T) {
	if defaultMaxIssues != formatter.DefaultMaxIssues || defaultMaxBytes != formatter.DefaultMaxBytes ||
		defaultMaxValueRunes != formatter.DefaultMaxValueRunes {
		t.Errorf("flag defaults %d, %d, %d; the engine's %d, %d, %d", defaultMaxIssues, defaultMaxBytes, defaultMaxValueRunes,
			formatter.DefaultMaxIssues, formatter.DefaultMaxBytes, formatter.DefaultMaxValueRunes)
	}
}

// TestPublicAPIOnly: the command is built on what a user can import, so
// that everything it does can be done with the library.
func TestPublicAPIOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			if path := strings.Trim(imp.Path.Value, `"`); strings.HasPrefix(path, "github.com/selfheal/selfheal/") && strings.Contains(path, "/internal") {
				t.Errorf("%s imports %s", name, path)
			}
		}
	}
}

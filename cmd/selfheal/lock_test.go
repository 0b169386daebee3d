package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/golden"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
)

// serverEnv makes the test binary a small MCP server on stdio instead of
// running tests; its value picks the version of the tools (v1 or v2).
const serverEnv = "SELFHEAL_TEST_MCP_SERVER"

func TestMain(m *testing.M) {
	if v := os.Getenv(serverEnv); v != "" {
		testServer(v)
		return
	}
	os.Exit(m.Run())
}

// testServer serves billing tools over stdio, two per page so that listing
// has to follow cursors. v2 changes them: a minimum raised, a new required
// field, a default changed, a tool removed and one added. "crash" exits at
// once with a message on standard error; "checked" refuses the calls it
// finds bad, and "plain" adds a tool that fails.
func testServer(version string) {
	if version == "crash" {
		os.Stderr.WriteString("config error: no database URL\n")
		os.Exit(3)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "billing", Version: version}, &mcp.ServerOptions{PageSize: 2})
	pay := `{"type":"object","properties":{"invoice_id":{"type":"string","pattern":"^inv_"},"amount":{"type":"integer","minimum":0},"currency":{"enum":["EUR","USD"],"default":"EUR"}},"required":["invoice_id","amount"]}`
	list := `{"type":"object","properties":{"limit":{"type":"integer","maximum":100}}}`
	tools := map[string]string{"billing.pay": pay, "billing.list_invoices": list,
		"billing.refund": `{"type":"object","properties":{"payment_id":{"type":"string"}},"required":["payment_id"]}`}
	if version == "v2" {
		tools["billing.pay"] = strings.NewReplacer(`"minimum":0`, `"minimum":1`, `"default":"EUR"`, `"default":"USD"`, `"required":["invoice_id","amount"]`, `"required":["invoice_id","amount","currency"]`).Replace(pay)
		tools["billing.list_invoices"] = strings.Replace(list, `"maximum":100`, `"maximum":500`, 1)
		delete(tools, "billing.refund")
		tools["billing.void"] = `{"type":"object","properties":{"invoice_id":{"type":"string"}},"required":["invoice_id"]}`
	}
	for name, schema := range tools {
		s.AddTool(&mcp.Tool{Name: name, Description: "Billing: " + name, InputSchema: json.RawMessage(schema)},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				// "checked" refuses a limit over 100 with a terse line, as
				// servers without selfheal check their input; the others
				// (Server.AddTool checks nothing) run every call.
				var args struct{ Limit int }
				if version == "checked" && json.Unmarshal(req.Params.Arguments, &args) == nil && args.Limit > 100 {
					return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
						Text: "MCP error -32602: Invalid arguments for tool " + req.Params.Name + ": Number must be less than or equal to 100"}}}, nil
				}
				return &mcp.CallToolResult{}, nil
			})
	}
	if version == "plain" { // a tool that fails as servers without selfheal do
		s.AddTool(&mcp.Tool{Name: "fail", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "write failed: disk full"}}}, nil
			})
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
}

// serverCommand is the command line that starts the test server.
func serverCommand(t *testing.T, version string) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(serverEnv, version) // the child inherits it; this process keeps testing
	return []string{exe, "-test.run=^$"}
}

const (
	lockV1 = "testdata/contract/billing.v1.lock"
	lockV2 = "testdata/contract/billing.v2.lock"
)

// TestLockAndDiffLive is the end-to-end path: selfheal lock against a real
// stdio MCP server, then selfheal diff --live against a newer version of it.
func TestLockAndDiffLive(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "selfheal.lock")
	var stdout, stderr bytes.Buffer
	args := append([]string{"lock", "--out", out, "--"}, serverCommand(t, "v1")...)
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, stderr.String())
	}
	if stdout.String() != "wrote "+out+": 3 tools\n" {
		t.Errorf("lock said %q", stdout.String())
	}
	got, _ := os.ReadFile(out)
	// The lockfile written from the live server is the checked-in v1 lock.
	goldenFile(t, lockV1, got)

	// Same server: no change, exit 0, nothing printed.
	stdout.Reset()
	args = append([]string{"diff", "--live", out, "--"}, serverCommand(t, "v1")...)
	if code := run(args, nil, &stdout, &stderr); code != 0 || stdout.Len() != 0 {
		t.Fatalf("diff against the same server: exit %d, %q %q", code, stdout.String(), stderr.String())
	}

	// v2: breaking, exit 1, the same lines as diffing the two lockfiles.
	stdout.Reset()
	args = append([]string{"diff", "--live", out, "--"}, serverCommand(t, "v2")...)
	if code := run(args, nil, &stdout, &stderr); code != 1 {
		t.Fatalf("diff against v2: exit %d, %s", code, stderr.String())
	}
	checkGolden(t, "contract/v1-v2", stdout.Bytes())

	// lock --out - writes the lockfile itself on standard output.
	stdout.Reset()
	args = append([]string{"lock", "--out", "-", "--"}, serverCommand(t, "v2")...)
	if code := run(args, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("lock --out -: exit %d: %s", code, stderr.String())
	}
	goldenFile(t, lockV2, stdout.Bytes())
}

// TestContractAwareness: the changes for one failed tool, as the MCP
// integrations embed them, render and parse back through the envelope.
func TestContractAwareness(t *testing.T) {
	old, err := contract.ReadFile(lockV1)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := contract.ReadFile(lockV2)
	if err != nil {
		t.Fatal(err)
	}
	kept, more := contract.ForTool(contract.Diff(old, cur), "billing.pay", 2)
	c := &envelope.Contract{More: more}
	for _, ch := range kept {
		c.Changes = append(c.Changes, envelope.ContractChange{Severity: ch.Severity.String(), Field: ch.Field, Description: ch.Description, Before: ch.Before, After: ch.After})
	}
	v := envelope.ValidationError{Action: "billing.pay", Fields: []envelope.Field{{Name: "amount", Text: "You sent: 0. Expected at least 1."}}, Contract: c}
	checkGolden(t, "contract/awareness", []byte(v.String()+"\n"))
	if _, err := envelope.Parse(v.String()); err != nil {
		t.Fatal(err)
	}
}

// TestDiff runs selfheal diff on lockfile pairs: output (golden), exit
// status, and the one-line error of bad input.
func TestDiff(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		code   int
		golden string
		stderr string
	}{
		{name: "breaking", args: []string{"diff", lockV1, lockV2}, code: 1, golden: "contract/v1-v2"},
		{name: "json", args: []string{"diff", "--json", lockV1, lockV2}, code: 1, golden: "contract/v1-v2.json"},
		{name: "flags after files", args: []string{"diff", lockV1, lockV2, "--json"}, code: 1, golden: "contract/v1-v2.json"},
		{name: "reverse", args: []string{"diff", lockV2, lockV1}, code: 1, golden: "contract/v2-v1"},
		{name: "same", args: []string{"diff", lockV1, lockV1}, code: 0, golden: "empty"},
		{name: "same json", args: []string{"diff", "--json", lockV1, lockV1}, code: 0, golden: "contract/none.json"},
		{name: "safe only", args: []string{"diff", "testdata/contract/safe.old.lock", "testdata/contract/safe.new.lock"}, code: 0, golden: "contract/safe"},
		{name: "fail on safe", args: []string{"diff", "--fail-on", "safe", "testdata/contract/safe.old.lock", "testdata/contract/safe.new.lock"}, code: 1, golden: "contract/safe"},
		{name: "fail never", args: []string{"diff", "--fail-on=never", lockV1, lockV2}, code: 0, golden: "contract/v1-v2"},

		{name: "no files", args: []string{"diff"}, code: 2, stderr: "want two lockfiles"},
		{name: "one file", args: []string{"diff", lockV1}, code: 2, stderr: "want two lockfiles"},
		{name: "three files", args: []string{"diff", lockV1, lockV2, lockV1}, code: 2, stderr: "want two lockfiles"},
		{name: "missing file", args: []string{"diff", lockV1, "testdata/contract/nope.lock"}, code: 2, stderr: "no such file"},
		{name: "malformed", args: []string{"diff", lockV1, "testdata/contract/malformed.lock"}, code: 2, stderr: "testdata/contract/malformed.lock: malformed JSON at line 4, column 5"},
		{name: "future version", args: []string{"diff", "testdata/contract/v2format.lock", lockV1}, code: 2, stderr: "testdata/contract/v2format.lock: lockfile version 2 is not supported"},
		{name: "edited by hand", args: []string{"diff", lockV1, "testdata/contract/edited.lock"}, code: 2, stderr: `tool "billing.pay": digest sha256:`},
		{name: "bad fail-on", args: []string{"diff", "--fail-on", "fatal", lockV1, lockV2}, code: 2, stderr: "--fail-on must be"},
		{name: "unknown flag", args: []string{"diff", "--fast", lockV1, lockV2}, code: 2, stderr: "flag provided but not defined: -fast"},
		{name: "live without command", args: []string{"diff", "--live", lockV1}, code: 2, stderr: "--live needs the server command after --"},
		{name: "live with two files", args: []string{"diff", "--live", lockV1, lockV2, "--", "x"}, code: 2, stderr: "--live takes one lockfile"},
		{name: "command without live", args: []string{"diff", lockV1, "--", "x"}, code: 2, stderr: "a server command after -- needs --live"},
		{name: "live server missing", args: []string{"diff", "--live", lockV1, "--", "./no-such-server"}, code: 2, stderr: "starting ./no-such-server"},
		{name: "lock without command", args: []string{"lock"}, code: 2, stderr: "no server command"},
		{name: "lock argument before --", args: []string{"lock", "x", "--", "y"}, code: 2, stderr: `unexpected argument "x" before --`},
		{name: "lock server missing", args: []string{"lock", "--out", os.DevNull, "--", "./no-such-server"}, code: 2, stderr: "selfheal lock: starting ./no-such-server"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tt.args, nil, &stdout, &stderr)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tt.code, stdout.String(), stderr.String())
			}
			if tt.stderr != "" {
				if !strings.Contains(stderr.String(), tt.stderr) {
					t.Errorf("stderr %q does not mention %q", stderr.String(), tt.stderr)
				}
				if strings.Count(strings.TrimSuffix(stderr.String(), "\n"), "\n") != 0 {
					t.Errorf("stderr is not one line: %q", stderr.String())
				}
				return
			}
			if stderr.Len() != 0 {
				t.Errorf("unexpected stderr: %s", stderr.String())
			}
			checkGolden(t, tt.golden, stdout.Bytes())
		})
	}
}

// TestServerFailure: a server that dies says why, in one line, quoting its
// own last words.
func TestServerFailure(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := append([]string{"lock", "--out", filepath.Join(t.TempDir(), "x.lock"), "--"}, serverCommand(t, "crash")...)
	if code := run(args, nil, &stdout, &stderr); code != 2 {
		t.Fatalf("exit %d", code)
	}
	msg := stderr.String()
	if !strings.HasPrefix(msg, "selfheal lock: ") || !strings.Contains(msg, "(server: config error: no database URL)") || strings.Count(msg, "\n") != 1 {
		t.Errorf("stderr %q", msg)
	}
}

// goldenFile is golden for a file whose whole name is given (lockfiles keep
// their .lock name so that the diff tests can read them).
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	rel, err := filepath.Rel("testdata", path)
	if err != nil || strings.HasPrefix(rel, "..") {
		t.Fatalf("golden file %s is not under testdata/", path)
	}
	golden.Check(t, rel, got)
}

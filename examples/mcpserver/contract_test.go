package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

// olderLock is the lockfile of an older version of the example's tools: it
// was written by "selfheal lock --out - -- <the built server>" and edited
// back to what the tools looked like before (users.create: name maxLength
// 120, role also "owner", age minimum 0, tags at least one item, another
// description; billing.list_invoices: limit maximum 500, status also
// "uncollectible", page_size not yet deprecated; no billing.export_invoices),
// digests removed so that they are recomputed.
const olderLock = "testdata/older.lock"

// contractCalls are bad calls answered by the server started with
// olderLock: a tool with BREAKING and RISKY changes gets exactly its own,
// a tool without changes (billing.get_invoice) or unknown to the lockfile
// (billing.export_invoices) answers as without a lockfile.
var contractCalls = []call{
	{"contract_users_create", "users.create", `{"name": "A", "emial": "ada@example.com", "age": "36", "role": "Admin"}`, nil},
	{"contract_list_invoices", "billing.list_invoices", `{"customer_id": "cus_Ab12Cd34", "limit": 250}`, nil},
	{"arguments_string", "billing.get_invoice", `"inv_2026_0001"`, nil},
	{"contract_export_invoices", "billing.export_invoices", `{"customer_id": "cust-42"}`, nil},
}

// wantChanges is what each tool's contract_awareness section holds, as
// envelope.Parse reads it back.
var wantChanges = map[string]*envelope.Contract{
	"users.create": {Changes: []envelope.ContractChange{
		{Severity: "BREAKING", Field: "age", Description: "Minimum raised from 0 to 13", Before: "0", After: "13"},
		{Severity: "BREAKING", Field: "name", Description: "Maximum length lowered from 120 to 80", Before: "120", After: "80"},
		{Severity: "BREAKING", Field: "role", Description: `Value "owner" is no longer accepted`,
			Before: `["admin","member","owner","viewer"]`, After: `["admin","member","viewer"]`},
		{Severity: "RISKY", Field: "tags", Description: "Minimum number of items of 1 removed: empty arrays are now accepted", Before: "1"},
	}},
	"billing.list_invoices": {Changes: []envelope.ContractChange{
		{Severity: "BREAKING", Field: "limit", Description: "Maximum lowered from 500 to 100", Before: "500", After: "100"},
		{Severity: "BREAKING", Field: "status", Description: `Value "uncollectible" is no longer accepted`,
			Before: `["draft","open","paid","uncollectible","void"]`, After: `["draft","open","paid","void"]`},
		{Severity: "RISKY", Field: "page_size", Description: "Deprecated", After: "true"},
	}},
}

func checkContract(t *testing.T, c call, res *mcp.CallToolResult) {
	t.Helper()
	if !res.IsError {
		t.Errorf("isError false, want true")
	}
	checkEnvelope(t, res)
	doc, err := envelope.Parse(res.Content[0].(*mcp.TextContent).Text)
	if err != nil || doc.Validation == nil {
		t.Fatalf("not a validation_error: %v", err)
	}
	if got, want := doc.Validation.Contract, wantChanges[c.tool]; !reflect.DeepEqual(got, want) {
		t.Errorf("contract_awareness of %s:\n%#v\nwant\n%#v", c.tool, got, want)
	}
	checkGolden(t, c.golden, render(t, res))
}

// TestContractAwareness: the example server given the lockfile of an older
// version of its tools tells the model, in each validation_error, what
// changed in the failed tool since then.
func TestContractAwareness(t *testing.T) {
	lock, err := contract.ReadFile(olderLock)
	if err != nil {
		t.Fatal(err)
	}
	s := NewServer(NewStore(), DefaultLimits, slog.New(slog.DiscardHandler), gosdk.WithContract(lock))
	cs := connect(t, s)
	for _, c := range contractCalls {
		t.Run(c.golden, func(t *testing.T) {
			res, err := cs.CallTool(context.Background(), c.params())
			if err != nil {
				t.Fatal(err)
			}
			checkContract(t, c, res)
		})
	}
}

// TestContractAwarenessCommand: the built server started with -lockfile,
// or with SELFHEAL_LOCKFILE, over stdio; and a lockfile it cannot read stops
// it before it serves.
func TestContractAwarenessCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the server")
	}
	bin := filepath.Join(t.TempDir(), "mcpserver")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, how := range []string{"flag", "env"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(bin, "-lockfile", olderLock)
			if how == "env" {
				cmd = exec.Command(bin)
				cmd.Env = append(os.Environ(), "SELFHEAL_LOCKFILE="+olderLock)
			}
			c := mcp.NewClient(&mcp.Implementation{Name: "e2e-stdio", Version: "1"}, nil)
			cs, err := c.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := cs.Close(); err != nil && !errors.Is(err, io.EOF) {
					t.Log(err)
				}
			}()
			for _, c := range contractCalls {
				res, err := cs.CallTool(context.Background(), c.params())
				if err != nil {
					t.Fatal(err)
				}
				want, err := os.ReadFile(filepath.Join("testdata", c.golden+".golden"))
				if err != nil {
					t.Fatal(err)
				}
				if got := render(t, res); got != string(want) {
					t.Errorf("%s over stdio: got\n%s\nwant\n%s", c.golden, got, want)
				}
			}
		})
	}
	out, err := exec.Command(bin, "-lockfile", filepath.Join(t.TempDir(), "missing.lock")).CombinedOutput()
	if err == nil || !strings.Contains(string(out), "missing.lock") {
		t.Errorf("a missing lockfile: err %v, output %q", err, out)
	}
}

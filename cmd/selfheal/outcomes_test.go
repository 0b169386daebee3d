package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/golden"
)

// Calls of the outcomes test, to the "checked" test server (see
// testServer): a near miss of list_invoices' limit (answered before
// forwarding), a limit over the maximum (rejected by the server,
// explained), a good call (repaired in two retries), a payment of a
// negative amount (the server accepts it: its schema disagrees), and a
// near miss of pay's currency, never retried (abandoned at the end).
const (
	goodListLine = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"billing.list_invoices","arguments":{"limit":5}}}`
	negativePay  = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"billing.pay","arguments":{"invoice_id":"inv_1","amount":-1}}}`
	typoPay      = `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"billing.pay","arguments":{"invoice_id":"inv_1","amount":1,"curency":"EUR"}}}`
)

// testOutcomes runs selfheal proxy --log --metrics in front of a real
// server with a client session as a model's goes: the metrics count each
// answer's outcome, the log holds each answer and its settlement, and
// selfheal report reads the log (testdata/report.golden, the README's
// "Is it working?" output).
func testOutcomes(t *testing.T, bin httpBinaries) {
	logPath := filepath.Join(t.TempDir(), "calls.log")
	cmd := exec.Command(bin.selfheal, append([]string{"proxy", "--metrics", "127.0.0.1:0", "--log", logPath}, serverCommand(t, "checked")...)...)
	p := startMetricsSession(t, cmd)
	p.call(listLine)
	for _, line := range []string{nearMissCallLine, lenientCallLine} {
		if got := p.call(line); !strings.Contains(got, `"isError":true`) {
			t.Fatalf("%s: not answered: %s", line, got)
		}
	}
	if got := p.call(goodListLine); strings.Contains(got, `"isError":true`) {
		t.Fatalf("a good call answered: %s", got)
	}
	if got := p.call(negativePay); strings.Contains(got, `"isError":true`) {
		t.Fatalf("a payment the server accepts, answered: %s", got)
	}
	if got := p.call(typoPay); !strings.Contains(got, "did you mean 'currency'") {
		t.Fatalf("a near miss not answered: %s", got)
	}
	holdsLines(t, get(t, p.url),
		`selfheal_repairs_total{outcome="failed_other",tool="billing.list_invoices"} 1`,
		`selfheal_repairs_total{outcome="repaired",tool="billing.list_invoices"} 1`,
		`selfheal_repair_attempts_sum 2`,
		`selfheal_repair_attempts_count 1`,
		`selfheal_proxy_schema_disagreements_total{tool="billing.pay"} 1`,
	)
	p.stdin.Close()
	if code := p.wait(t); code != 0 {
		t.Fatalf("exit %d, want 0\nstderr: %s", code, p.stderr.String())
	}

	data, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	stable := regexp.MustCompile(`"time":"[^"]*",|,"after_ms":[0-9]+`).ReplaceAllString(string(data), "")
	ids := map[string]string{}
	stable = regexp.MustCompile(`"[0-9a-f]{8}-[0-9]+"`).ReplaceAllStringFunc(stable, func(id string) string {
		if ids[id] == "" {
			ids[id] = fmt.Sprintf(`"#%d"`, len(ids)+1)
		}
		return ids[id]
	})
	want := `{"id":"#1","tool":"billing.list_invoices","codes":["unrecognized_keys"],"paths":["(root)"],"answer":"validation_error"}
{"of":"#1","tool":"billing.list_invoices","outcome":"failed_other","attempt":1}
{"id":"#2","tool":"billing.list_invoices","codes":["too_big"],"paths":["limit"],"answer":"validation_error"}
{"of":"#2","tool":"billing.list_invoices","outcome":"repaired","attempt":2}
{"tool":"billing.pay","codes":["too_small"],"paths":["amount"],"answer":"accepted","disagreed":true}
{"id":"#3","tool":"billing.pay","codes":["unrecognized_keys"],"paths":["(root)"],"answer":"validation_error"}
{"of":"#3","tool":"billing.pay","outcome":"abandoned","attempt":1}
{"calls":{"billing.list_invoices":3,"billing.pay":2}}
`
	if stable != want {
		t.Errorf("call log:\n%s\nwant\n%s", stable, want)
	}

	var out, errOut bytes.Buffer
	if code := run([]string{"report", logPath}, nil, &out, &errOut); code != 0 || errOut.Len() > 0 {
		t.Fatalf("report: exit %d: %s", code, errOut.String())
	}
	// The time span is the run's: the golden file has the same line of a
	// run at a fixed time.
	text := regexp.MustCompile(`(?m)^\d+ lines in 1 files, .*$`).ReplaceAllString(out.String(), "8 lines in 1 files, 2026-01-02T15:04:05Z to 2026-01-02T15:04:06Z (1s)")
	golden.Check(t, "report.golden", []byte(text))
}

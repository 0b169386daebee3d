package main

import (
	"fmt"
	"strings"
	"testing"
)

// TestProxyLargeCalls: calls whose arguments are larger than a pipe's
// buffer (64 KiB on Linux), written to the server with blocking writes,
// reach it whole and are answered, in both modes: forwarded (the test
// server checks nothing) or, with --strict, the bad ones answered by the
// proxy after it has read them. The proxy then ends with the server when
// the client closes stdin.
func TestProxyLargeCalls(t *testing.T) {
	server := serverCommand(t, "v1")
	for _, tc := range []struct {
		name    string
		flags   []string
		badWant string // in the answer to a call with amount -1
	}{
		{"default", nil, `"result":{"content":[]}`},
		{"strict", []string{"--strict"}, `<validation_error action=\"billing.pay\">`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startProxy(t, append(tc.flags, server...)...)
			p.call(initializeLine)
			p.send(initializedLine)
			if got := p.call(listLine); !strings.Contains(got, `"billing.pay"`) {
				t.Fatalf("the first page lacks billing.pay: %.300s", got)
			}
			id := 10
			for _, size := range []int{60_000, 70_000, 1 << 20} {
				for _, amount := range []int{5, -1} {
					id++
					got := p.call(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"billing.pay","arguments":{"invoice_id":"inv_%s","amount":%d}}}`,
						id, strings.Repeat("x", size), amount))
					want := `"result":{"content":[]}`
					if amount < 0 {
						want = tc.badWant
					}
					if !strings.HasPrefix(got, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, id)) || !strings.Contains(got, want) {
						t.Errorf("%d bytes, amount %d: %.300s", size, amount, got)
					}
				}
			}
			if code := p.close(); code != 0 {
				t.Errorf("exit %d: %s", code, p.stderr.String())
			}
		})
	}
}

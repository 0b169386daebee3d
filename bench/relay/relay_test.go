package main

import (
	"bytes"
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestHarness runs every phase of the harness once, at one size and with
// few calls, through the programs it builds: the clients' checks of every
// answer (the server's result, its -32602, the proxy's validation_error, a
// result of the exact size) hold on each side, and each table is printed.
// It times nothing that it asserts.
func TestHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds selfheal and the harness's programs")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	b, err := build(t.TempDir(), "")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	cfg := config{
		runs:     2,
		sizes:    []int{60_000, 70_000},
		kinds:    []string{kindValid, kindBad, kindResult},
		phases:   map[string]bool{},
		naive:    true,
		scale:    0.01,
		memSize:  100_000,
		conc:     []int{2},
		httpTime: 100 * time.Millisecond,
		bins:     b,
		out:      &out,
		log:      io.Discard,
	}
	for _, p := range splitList(allPhases) {
		cfg.phases[p] = true
	}
	if err := run(cfg); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"### Round trip: Valid calls", "### Round trip: Bad calls", "### Round trip: Results",
		"| 70 KB |", "strict ÷ relay", "| bad | naive |", "70 ÷ 60", "÷ the relay's",
		"### Throughput", "| result | 60 KB |",
		"### Peak RSS", "| proxy |",
		"### HTTP", "| 2 |",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in the output:\n%s", want, out.String())
		}
	}
}

func TestCall(t *testing.T) {
	for _, kind := range []string{kindValid, kindBad} {
		for _, size := range []int{100, 1000, 70_000} {
			line := call(kind, size)
			setID(line, 123456789)
			i := strings.Index(string(line), `"arguments":`) + len(`"arguments":`)
			if got := len(line) - i - len("}}\n"); got != size {
				t.Errorf("%s %d: arguments of %d bytes", kind, size, got)
			}
			if !bytes.HasPrefix(line, []byte(`{"jsonrpc":"2.0","id":"c123456789","method":"tools/call"`)) {
				t.Errorf("%s", line[:60])
			}
		}
	}
}

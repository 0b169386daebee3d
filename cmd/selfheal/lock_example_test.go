package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestLockAndDiffExampleServer runs lock, then diff --live, against the
// built example server (examples/mcpserver): no change against its own
// fresh lock (exit 0), and the BREAKING changes since the older lockfile
// its end-to-end test starts it with (exit 1).
func TestLockAndDiffExampleServer(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the example server")
	}
	dir := goBuild(t, "../../examples/mcpserver")
	bin := filepath.Join(dir, "mcpserver")
	lock := filepath.Join(dir, "selfheal.lock")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"lock", "--out", lock, "--", bin}, nil, &stdout, &stderr); code != 0 {
		t.Fatalf("lock: exit %d: %s", code, stderr.String())
	}
	if want := "wrote " + lock + ": 4 tools\n"; stdout.String() != want {
		t.Errorf("lock said %q, want %q", stdout.String(), want)
	}

	stdout.Reset()
	if code := run([]string{"diff", "--live", lock, "--", bin}, nil, &stdout, &stderr); code != 0 || stdout.Len() != 0 {
		t.Fatalf("diff against its own lock: exit %d, %q %q", code, stdout.String(), stderr.String())
	}

	stdout.Reset()
	older := "../../examples/mcpserver/testdata/older.lock"
	if code := run([]string{"diff", "--live", older, "--", bin}, nil, &stdout, &stderr); code != 1 {
		t.Fatalf("diff against the older lock: exit %d, %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "BREAKING ") {
		t.Errorf("the most severe change first:\n%s", stdout.String())
	}
	checkGolden(t, "contract/mcpserver-older", stdout.Bytes())
}

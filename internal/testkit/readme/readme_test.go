package readme

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// snippet is one ```go block of the README.
type snippet struct {
	line int // README line of the block's first line of code
	code string
}

// goBlocks returns the ```go blocks of a Markdown document, in order.
func goBlocks(md []byte) ([]snippet, error) {
	var out []snippet
	var cur *snippet
	var buf strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(md))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{line: n + 1}
			buf.Reset()
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.code = buf.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			buf.WriteString(line)
			buf.WriteByte('\n')
		}
	}
	if cur != nil {
		return out, fmt.Errorf("the ```go block at line %d is not closed", cur.line-1)
	}
	return out, sc.Err()
}

var packageClause = regexp.MustCompile(`(?m)^package [A-Za-z_][A-Za-z0-9_]*\b`)

// TestReadmeSnippetsCompile builds every ```go block of ../../../README.md as a
// whole Go file in a package of its own (snippetN/main.go), inside one
// temporary module that requires github.com/selfheal/selfheal and replaces it
// with this checkout, with one go vet over all of them. Each block must
// therefore be a whole file: a package clause, its imports, and (for package
// main) a main function. Building outside the module is what a user does: a
// block that imports an internal package fails, as it would for them.
//
// No network: the temporary module reuses this module's go.sum, and the
// dependencies come from the module cache (GOPROXY=off, GOFLAGS=-mod=mod).
func TestReadmeSnippetsCompile(t *testing.T) {
	goBin, root, md := readme(t)
	blocks, err := goBlocks(md)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) == 0 {
		t.Fatal("README.md has no ```go block")
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(goMod)
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}

	dir := t.TempDir()
	mod := fmt.Sprintf("module readme\n\ngo %s\n\nrequire github.com/selfheal/selfheal v0.0.0\n\nreplace github.com/selfheal/selfheal => %s\n", goVersion[1], root)
	write(t, filepath.Join(dir, "go.mod"), mod)
	write(t, filepath.Join(dir, "go.sum"), string(goSum))
	where := map[string]int{} // snippet directory → README line
	for i, b := range blocks {
		if !packageClause.MatchString(b.code) {
			t.Errorf("README.md:%d: the ```go block is not a whole Go file: start it with a package clause", b.line)
			continue
		}
		name := fmt.Sprintf("snippet%d", i+1)
		where[name] = b.line
		write(t, filepath.Join(dir, name, "main.go"), b.code)
	}
	if t.Failed() {
		return
	}

	cmd := exec.Command(goBin, "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		// Point at the README's lines rather than the temporary files.
		msg := snippetPos.ReplaceAllStringFunc(string(out), func(pos string) string {
			m := snippetPos.FindStringSubmatch(pos)
			n, _ := strconv.Atoi(m[2])
			return fmt.Sprintf("README.md:%d", where["snippet"+m[1]]+n-1)
		})
		t.Fatalf("a README snippet does not compile (go vet: %v):\n%s", err, msg)
	}
}

// snippetPos matches a position in a snippet's file as go vet prints it.
var snippetPos = regexp.MustCompile(`(?:\./)?snippet(\d+)/main\.go:(\d+)`)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// readme returns the go command, the module root and its README, skipping
// the test where no go command is on PATH.
func readme(t *testing.T) (goBin, root string, md []byte) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	if root, err = filepath.Abs(filepath.Join("..", "..", "..")); err != nil {
		t.Fatal(err)
	}
	if md, err = os.ReadFile(filepath.Join(root, "README.md")); err != nil {
		t.Fatal(err)
	}
	return goBin, root, md
}

package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/internal/testkit/golden"
)

// The client configurations under testdata/wrap, in the shapes each
// client's documentation gives: Claude Desktop (claude_desktop_config.json),
// Claude Code's project file (mcp.json, as .mcp.json) and its ~/.claude.json
// (claude.json: user servers and servers per project), Cursor
// (cursor-mcp.json, with an entry already wrapped), Windsurf
// (mcp_config.json: disabled entries and serverUrl) and VS Code
// (vscode-mcp.json: comments, inputs, trailing commas, tabs).
var wrapConfigs = []string{
	"claude_desktop_config.json", "mcp.json", "claude.json", "cursor-mcp.json", "mcp_config.json", "vscode-mcp.json",
}

// fixedNow fixes the clock of the backups' names.
func fixedNow(t *testing.T) {
	t.Helper()
	old := now
	now = func() time.Time { return time.Date(2026, 12, 7, 17, 43, 5, 0, time.UTC) }
	t.Cleanup(func() { now = old })
}

const backupSuffix = ".selfheal-20261207T174305Z.bak"

// onPath puts an executable named selfheal in a directory of its own and
// makes it the PATH, so that wrap writes "selfheal" as a user with selfheal
// installed would see.
func onPath(t *testing.T) {
	t.Helper()
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "selfheal"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Setenv("SELFHEAL_VIA_NPX", "")
}

// scratchCopy copies testdata/wrap/name into a temporary directory and
// returns the copy's path and bytes. The tests that compare with golden
// files stay in the package's directory, where testdata is.
func scratchCopy(t *testing.T, name string) (string, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", "wrap", name))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	return path, src
}

// runWrap runs the command and returns what it printed, with the
// directory of the files it names (dir, when given) left out.
func runWrap(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// inDir is text with the directory dir left out of the paths it names.
func inDir(text, dir string) string {
	return strings.ReplaceAll(text, dir+string(filepath.Separator), "")
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// dirNames lists a directory's entries: a refused write leaves only the
// file that was there.
func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// TestWrapGolden wraps each client's configuration: the diff shown without
// --yes (golden .diff), the file written with --yes (golden .wrapped) and its
// backup (the original bytes), a second wrap that changes nothing, and
// unwrap, which gives back the original file byte for byte.
func TestWrapGolden(t *testing.T) {
	for _, name := range wrapConfigs {
		t.Run(name, func(t *testing.T) {
			onPath(t)
			fixedNow(t)
			path, orig := scratchCopy(t, name)
			dir := filepath.Dir(path)
			base := "wrap/" + strings.TrimSuffix(name, ".json")

			code, out, errOut := runWrap(t, "wrap", path)
			if code != 0 || errOut != "" {
				t.Fatalf("wrap: exit %d, stderr %q", code, errOut)
			}
			golden.Check(t, base+".diff.golden", []byte(inDir(out, dir)))
			if got := readFile(t, path); !bytes.Equal(got, orig) {
				t.Fatal("wrap without --yes wrote the file")
			}

			code, out, errOut = runWrap(t, "wrap", "--yes", path)
			if code != 0 || errOut != "" {
				t.Fatalf("wrap --yes: exit %d, stderr %q", code, errOut)
			}
			if want := "wrote " + name + " (backup: " + name + backupSuffix + ")\n"; !strings.HasSuffix(inDir(out, dir), want) {
				t.Errorf("wrap --yes printed %q, want a line %q", out, want)
			}
			wrapped := readFile(t, path)
			golden.Check(t, base+".wrapped.golden", wrapped)
			if got := readFile(t, path+backupSuffix); !bytes.Equal(got, orig) {
				t.Error("the backup is not the original file")
			}
			if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
				t.Errorf("the file's mode is %v (%v), want 0600 as it was", info.Mode().Perm(), err)
			}

			code, out, _ = runWrap(t, "wrap", "--yes", path)
			if code != 0 || !strings.Contains(out, "nothing to change") || strings.Contains(out, ": wrapped") {
				t.Errorf("a second wrap: exit %d, printed %q; want nothing to change", code, out)
			}
			if got := readFile(t, path); !bytes.Equal(got, wrapped) {
				t.Error("a second wrap changed the file")
			}

			if err := os.Remove(path + backupSuffix); err != nil {
				t.Fatal(err)
			}
			code, out, errOut = runWrap(t, "unwrap", "--yes", path)
			if code != 0 || errOut != "" {
				t.Fatalf("unwrap --yes: exit %d, stderr %q", code, errOut)
			}
			golden.Check(t, base+".unwrap.golden", []byte(inDir(out, dir)))
			got := readFile(t, path)
			if prewrapped[name] {
				// Its entry that was behind the proxy before wrap is not.
				golden.Check(t, base+".unwrapped.golden", got)
			} else if !bytes.Equal(got, orig) {
				t.Errorf("wrap then unwrap did not restore the file byte for byte:\n%s", unifiedDiff(name, orig, got))
			}
		})
	}
}

// prewrapped are the configurations with an entry behind the proxy already.
var prewrapped = map[string]bool{"cursor-mcp.json": true}

// TestWrapNpxFlags: run through npx (the shim sets SELFHEAL_VIA_NPX=1), wrap
// writes the npx form, with the proxy flags of --flags in every entry; unwrap
// recognises that form too.
func TestWrapNpxFlags(t *testing.T) {
	for _, name := range []string{"claude_desktop_config.json", "vscode-mcp.json"} {
		t.Run(name, func(t *testing.T) {
			onPath(t)
			fixedNow(t)
			t.Setenv("SELFHEAL_VIA_NPX", "1")
			path, orig := scratchCopy(t, name)
			code, _, errOut := runWrap(t, "wrap", "--yes", "--flags", "--strict  --log /tmp/selfheal-calls.log", path)
			if code != 0 || errOut != "" {
				t.Fatalf("wrap: exit %d, stderr %q", code, errOut)
			}
			golden.Check(t, "wrap/"+strings.TrimSuffix(name, ".json")+".npx.golden", readFile(t, path))
			if err := os.Remove(path + backupSuffix); err != nil {
				t.Fatal(err)
			}
			if code, _, errOut := runWrap(t, "unwrap", "--yes", path); code != 0 || errOut != "" {
				t.Fatalf("unwrap: exit %d, stderr %q", code, errOut)
			}
			if got := readFile(t, path); !bytes.Equal(got, orig) {
				t.Errorf("unwrap did not restore the file:\n%s", unifiedDiff(name, orig, got))
			}
		})
	}
}

// TestWrapClients finds each client's file where its documentation puts
// it, under a HOME of the test's and in the working directory.
func TestWrapClients(t *testing.T) {
	tests := []struct {
		client string
		files  []string // relative to HOME ("~/") or to the working directory
	}{
		{"claude-desktop", []string{"~/.config/Claude/claude_desktop_config.json"}},
		{"claude-code", []string{".mcp.json", "~/.claude.json"}},
		{"cursor", []string{".cursor/mcp.json", "~/.cursor/mcp.json"}},
		{"windsurf", []string{"~/.codeium/windsurf/mcp_config.json"}},
		{"vscode", []string{".vscode/mcp.json", "~/.config/Code/User/mcp.json"}},
	}
	src := readFile(t, filepath.Join("testdata", "wrap", "mcp.json"))
	for _, tt := range tests {
		t.Run(tt.client, func(t *testing.T) {
			onPath(t)
			fixedNow(t)
			home, cwd := t.TempDir(), t.TempDir()
			t.Setenv("HOME", home)
			t.Setenv("XDG_CONFIG_HOME", "")
			t.Chdir(cwd)

			code, _, errOut := runWrap(t, "wrap", "--client", tt.client)
			if code != 2 || !strings.HasPrefix(errOut, "selfheal wrap: no configuration of ") || strings.Count(errOut, "\n") != 1 {
				t.Errorf("no file: exit %d, stderr %q", code, errOut)
			}
			var paths []string
			for _, f := range tt.files {
				p := filepath.Join(cwd, f)
				if rest, ok := strings.CutPrefix(f, "~/"); ok {
					p = filepath.Join(home, rest)
				}
				if !strings.Contains(errOut, p) {
					t.Errorf("the refusal does not name %s: %q", p, errOut)
				}
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, src, 0o644); err != nil {
					t.Fatal(err)
				}
				paths = append(paths, p)
			}
			code, out, errOut := runWrap(t, "wrap", "--yes", "--client", tt.client)
			if code != 0 || errOut != "" {
				t.Fatalf("exit %d, stderr %q", code, errOut)
			}
			for _, p := range paths {
				if !strings.Contains(out, "wrote "+p+" (backup: "+p+backupSuffix+")") {
					t.Errorf("%s was not written: %s", p, out)
				}
				if !bytes.Contains(readFile(t, p), []byte(`"command": "selfheal"`)) {
					t.Errorf("%s is not wrapped", p)
				}
			}
		})
	}
}

// TestWrapRefusals: what wrap cannot do safely is refused with one line on
// standard error, exit 2, and nothing written: no change, no backup, no
// temporary file left.
func TestWrapRefusals(t *testing.T) {
	t.Run("unparsable", func(t *testing.T) {
		onPath(t)
		dir := t.TempDir()
		t.Chdir(dir)
		bad := []byte("{\n  \"mcpServers\": {\n    \"a\": {\"command\": \"npx\",, }\n  }\n}\n")
		if err := os.WriteFile("broken.json", bad, 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runWrap(t, "wrap", "--yes", "broken.json")
		checkRefused(t, code, out, errOut, "selfheal wrap: broken.json: cannot parse: hujson: line 3, column 28: invalid character ',' at start of value; nothing written")
		if !bytes.Equal(readFile(t, "broken.json"), bad) || !slices.Equal(dirNames(t, dir), []string{"broken.json"}) {
			t.Error("something was written")
		}
	})
	t.Run("not an object", func(t *testing.T) {
		onPath(t)
		t.Chdir(t.TempDir())
		if err := os.WriteFile("list.json", []byte(`["npx"]`), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := runWrap(t, "wrap", "list.json")
		checkRefused(t, code, out, errOut, "selfheal wrap: list.json: cannot parse: not a JSON object; nothing written")
	})
	t.Run("changed before the write", func(t *testing.T) {
		onPath(t)
		fixedNow(t)
		path, orig := scratchCopy(t, "mcp.json")
		dir := filepath.Dir(path)
		t.Chdir(dir)
		edited := append(slices.Clone(orig), "\n"...)
		old := beforeReplace
		beforeReplace = func(path string) {
			// A client saving its file while wrap runs.
			if err := os.WriteFile(path, edited, 0o600); err != nil {
				t.Error(err)
			}
		}
		t.Cleanup(func() { beforeReplace = old })
		code, out, errOut := runWrap(t, "wrap", "--yes", "mcp.json")
		checkRefused(t, code, "", errOut, "selfheal wrap: mcp.json changed while selfheal was changing it; nothing written: run it again")
		if !strings.Contains(out, "+++ mcp.json (new)") {
			t.Errorf("the diff was not shown first: %q", out)
		}
		if !bytes.Equal(readFile(t, "mcp.json"), edited) {
			t.Error("the client's edit was overwritten")
		}
		if got := dirNames(t, dir); !slices.Equal(got, []string{"mcp.json"}) {
			t.Errorf("left behind: %v", got)
		}
	})
	t.Run("unwritable", func(t *testing.T) {
		onPath(t)
		fixedNow(t)
		path, orig := scratchCopy(t, "mcp.json")
		dir := filepath.Dir(path)
		t.Chdir(dir)
		// A directory where the backup would go: refused whoever runs the
		// test (root ignores a read-only directory's mode, CI runs as root).
		if err := os.Mkdir("mcp.json"+backupSuffix, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(dir, 0o755) })
		code, out, errOut := runWrap(t, "wrap", "--yes", "mcp.json")
		want := "selfheal wrap: cannot write the backup of mcp.json"
		if os.Geteuid() != 0 {
			want = "selfheal wrap: cannot write mcp.json: permission denied; nothing written"
		}
		if code != 2 || !strings.HasPrefix(errOut, want) || strings.Count(errOut, "\n") != 1 || !strings.HasSuffix(errOut, "; nothing written\n") {
			t.Errorf("exit %d, stderr %q, want one line starting %q", code, errOut, want)
		}
		if strings.Contains(out, "wrote") {
			t.Errorf("stdout says it wrote: %q", out)
		}
		if !bytes.Equal(readFile(t, "mcp.json"), orig) {
			t.Error("the file changed")
		}
		if got := dirNames(t, dir); !slices.Equal(got, []string{"mcp.json", "mcp.json" + backupSuffix}) {
			t.Errorf("left behind: %v", got)
		}
	})

	usage := []struct {
		name string
		args []string
		want string
	}{
		{"no client", []string{"wrap"}, "selfheal wrap: name a client (--client claude-desktop|claude-code|cursor|windsurf|vscode) or a configuration file"},
		{"unknown client", []string{"wrap", "--client", "zed"}, `selfheal wrap: unknown client "zed" (want claude-desktop, claude-code, cursor, windsurf, vscode)`},
		{"client and file", []string{"wrap", "--client", "cursor", "a.json"}, "selfheal wrap: name a client or a file, not both"},
		{"two files", []string{"unwrap", "a.json", "b.json"}, "selfheal unwrap: one file at most, got 2: a.json b.json"},
		{"missing file", []string{"wrap", "nope.json"}, "selfheal wrap: cannot read nope.json: no such file or directory"},
		{"a directory", []string{"wrap", "."}, "selfheal wrap: cannot read .: is a directory"},
		{"flag typo", []string{"wrap", "--flags", "--strct", "a.json"}, "selfheal wrap: --flags: flag provided but not defined: -strct"},
		{"flag value", []string{"wrap", "--flags", "--max-depth deep", "a.json"}, `selfheal wrap: --flags: invalid value "deep" for flag -max-depth: parse error`},
		{"not a flag", []string{"wrap", "--flags", "--strict server.js", "a.json"}, `selfheal wrap: --flags: "server.js" is not a flag of selfheal proxy`},
		{"listen", []string{"wrap", "--flags", "--listen 127.0.0.1:0", "a.json"}, "selfheal wrap: --flags: --listen serves HTTP: a client's entry runs the proxy over stdio"},
		{"unwrap flags", []string{"unwrap", "--flags", "--strict", "a.json"}, "selfheal unwrap: flag provided but not defined: -flags"},
	}
	for _, tt := range usage {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, out, errOut := runWrap(t, tt.args...)
			checkRefused(t, code, out, errOut, tt.want)
		})
	}
}

func checkRefused(t *testing.T, code int, stdout, stderr, want string) {
	t.Helper()
	if code != 2 || stderr != want+"\n" || stdout != "" {
		t.Errorf("exit %d, stdout %q, stderr %q\nwant exit 2 and stderr %q", code, stdout, stderr, want)
	}
}

// TestLauncher: the command wrap writes.
func TestLauncher(t *testing.T) {
	found := func(string) (string, error) { return "/usr/local/bin/selfheal", nil }
	missing := func(string) (string, error) { return "", errors.New("not found") }
	exe := func() (string, error) { return "/opt/selfheal/bin/selfheal", nil }
	noExe := func() (string, error) { return "", errors.New("unknown") }
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "SELFHEAL_VIA_NPX" {
				return v
			}
			return ""
		}
	}
	tests := []struct {
		name     string
		getenv   func(string) string
		lookPath func(string) (string, error)
		exe      func() (string, error)
		want     []string
	}{
		{"npx", env("1"), found, exe, []string{"npx", "-y", "selfheal", "proxy"}},
		{"on PATH", env(""), found, exe, []string{"selfheal", "proxy"}},
		{"not on PATH", env(""), missing, exe, []string{"/opt/selfheal/bin/selfheal", "proxy"}},
		{"nothing known", env("0"), missing, noExe, []string{"selfheal", "proxy"}},
	}
	for _, tt := range tests {
		if got := launcher(tt.getenv, tt.lookPath, tt.exe); !slices.Equal(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// TestProxyPrefix: how wrap recognises an entry already behind the proxy
// and where unwrap finds the server's command.
func TestProxyPrefix(t *testing.T) {
	tests := []struct {
		command string
		args    []string
		n       int
		wrapped bool
	}{
		{"selfheal", []string{"proxy", "--", "npx", "-y", "srv"}, 2, true},
		{"selfheal", []string{"proxy", "npx", "-y", "srv"}, 1, true},
		{"selfheal", []string{"proxy", "--strict", "--log", "x.log", "--", "node", "s.js", "--", "--port", "3"}, 5, true},
		{"selfheal", []string{"proxy", "--log", "x.log", "node", "s.js"}, 3, true},
		{"/usr/local/bin/selfheal", []string{"proxy", "--", "uvx", "fetch"}, 2, true},
		{`C:\Tools\selfheal.exe`, []string{"proxy", "--", "uvx", "fetch"}, 2, true},
		{"npx", []string{"-y", "selfheal", "proxy", "--strict", "--", "uvx", "fetch"}, 5, true},
		{"npx", []string{"--yes", "selfheal@1.2.3", "proxy", "--", "uvx", "fetch"}, 4, true},
		{"npx.cmd", []string{"selfheal", "proxy", "docker", "run", "-i", "img"}, 2, true},
		{"selfheal", []string{"proxy", "--nope", "--", "srv"}, -1, true},
		{"selfheal", []string{"proxy"}, -1, true},
		{"npx", []string{"-y", "@modelcontextprotocol/server-memory"}, 0, false},
		{"npx", []string{"-y", "selfheal-other", "proxy", "--", "srv"}, 0, false},
		{"selfheal", []string{"check", "--schema", "s.json"}, 0, false},
		{"node", []string{"selfheal", "proxy", "--", "srv"}, 0, false},
		{"npx", nil, 0, false},
	}
	for _, tt := range tests {
		n, wrapped := proxyPrefix(tt.command, tt.args)
		if n != tt.n || wrapped != tt.wrapped {
			t.Errorf("%s %q: (%d, %v), want (%d, %v)", tt.command, tt.args, n, wrapped, tt.n, tt.wrapped)
		}
	}
}

// TestUnifiedDiff: diff -u's format, hunks merged when their context
// touches, and a last line without a newline marked as diff marks it.
func TestUnifiedDiff(t *testing.T) {
	lines := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			if s, ok := change[i]; ok {
				b.WriteString(s)
				continue
			}
			b.WriteString("line " + strings.Repeat("x", i%3) + "\n")
		}
		return b.String()
	}
	tests := []struct {
		name, a, b, want string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"one line", "a\nb\nc\n", "a\nB\nc\n", "--- f\n+++ f (new)\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"added at the end", "a\n", "a\nb\n", "--- f\n+++ f (new)\n@@ -1,1 +1,2 @@\n a\n+b\n"},
		{"from empty", "", "a\n", "--- f\n+++ f (new)\n@@ -0,0 +1,1 @@\n+a\n"},
		{"no newline", "a\nb", "a\nc", "--- f\n+++ f (new)\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"two hunks", lines(20, map[int]string{2: "two\n", 18: "eighteen\n"}), lines(20, map[int]string{2: "TWO\n", 18: "EIGHTEEN\n"}),
			"--- f\n+++ f (new)\n@@ -1,5 +1,5 @@\n line x\n-two\n+TWO\n line \n line x\n line xx\n" +
				"@@ -15,6 +15,6 @@\n line \n line x\n line xx\n-eighteen\n+EIGHTEEN\n line x\n line xx\n"},
		{"one hunk", lines(12, map[int]string{3: "3\n", 9: "9\n"}), lines(12, map[int]string{3: "three\n", 9: "nine\n"}),
			"--- f\n+++ f (new)\n@@ -1,12 +1,12 @@\n line x\n line xx\n-3\n+three\n line x\n line xx\n line \n line x\n line xx\n-9\n+nine\n line x\n line xx\n line \n"},
	}
	for _, tt := range tests {
		if got := unifiedDiff("f", []byte(tt.a), []byte(tt.b)); got != tt.want {
			t.Errorf("%s:\n%s\nwant:\n%s", tt.name, got, tt.want)
		}
	}
}

// TestWrapLayouts: entries written on one line, without args, with an
// empty args, with CRLF line ends or a trailing comma: wrap writes the
// literal result, and unwrap gives back the input byte for byte.
func TestWrapLayouts(t *testing.T) {
	tests := []struct{ name, in, wrapped string }{
		{"inline, no args", `{"mcpServers":{"a":{"command":"srv"}}}`,
			`{"mcpServers":{"a":{"args":["proxy", "--", "srv"], "command":"selfheal"}}}`},
		{"inline, spaced", `{"mcpServers": {"a": {"command": "srv", "env": {"K": "v"}}}}`,
			`{"mcpServers": {"a": {"args": ["proxy", "--", "srv"], "command": "selfheal", "env": {"K": "v"}}}}`},
		{"empty args after command (as claude mcp add writes)", "{\"mcpServers\": {\"a\": {\"command\": \"srv\", \"args\": []}}}",
			"{\"mcpServers\": {\"a\": {\"command\": \"selfheal\", \"args\": [\"proxy\", \"--\", \"srv\"]}}}"},
		{"one arg, one per line", "{\"mcpServers\": {\"a\": {\n  \"command\": \"node\",\n  \"args\": [\n    \"s.js\"\n  ]\n}}}",
			"{\"mcpServers\": {\"a\": {\n  \"command\": \"selfheal\",\n  \"args\": [\n    \"proxy\",\n    \"--\",\n    \"node\",\n    \"s.js\"\n  ]\n}}}"},
		{"CRLF, no args", "{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"command\": \"srv\"\r\n    }\r\n  }\r\n}\r\n",
			"{\r\n  \"mcpServers\": {\r\n    \"a\": {\r\n      \"args\": [\"proxy\", \"--\", \"srv\"],\r\n      \"command\": \"selfheal\"\r\n    }\r\n  }\r\n}\r\n"},
		{"trailing comma, comment before command", "{\"servers\": {\"a\": {\n\t// the server\n\t\"command\": \"srv\",\n}}}",
			"{\"servers\": {\"a\": {\n\t// the server\n\t\"args\": [\"proxy\", \"--\", \"srv\"],\n\t\"command\": \"selfheal\",\n}}}"},
		{"escaped command", `{"mcpServers": {"a": {"command": "C:\\bin\\srv.exe", "args": ["-v"]}}}`,
			`{"mcpServers": {"a": {"command": "selfheal", "args": ["proxy", "--", "C:\\bin\\srv.exe", "-v"]}}}`},
	}
	for _, tt := range tests {
		wrap := &wrapJob{launcher: []string{"selfheal", "proxy"}}
		got, _, err := wrap.rewrite([]byte(tt.in))
		if err != nil || string(got) != tt.wrapped {
			t.Errorf("%s: wrap gave %q (%v)\nwant          %q", tt.name, got, err, tt.wrapped)
			continue
		}
		back, _, err := (&wrapJob{unwrap: true}).rewrite(got)
		if err != nil || string(back) != tt.in {
			t.Errorf("%s: unwrap gave %q (%v)\nwant            %q", tt.name, back, err, tt.in)
		}
	}
}

package readme

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// installLines returns the lines of the ```sh blocks under the README's
// "## Install" heading, without their comments.
func installLines(md []byte) []string {
	section := string(md)
	start := strings.Index(section, "\n## Install\n")
	if start < 0 {
		return nil
	}
	section = section[start+1:]
	if end := strings.Index(section[1:], "\n## "); end >= 0 {
		section = section[:end+1]
	}
	var lines []string
	for _, m := range regexp.MustCompile("(?s)```sh\n(.*?)```").FindAllStringSubmatch(section, -1) {
		for line := range strings.Lines(m[1]) {
			line, _, _ = strings.Cut(line, " #")
			if line = strings.TrimSpace(line); line != "" {
				lines = append(lines, line)
			}
		}
	}
	return lines
}

// TestReadmeGoInstall runs the README's `go install …@latest` line as
// written, in a fresh directory, against a module proxy made of this
// checkout, published there under a version of its own (v0.0.1-readme.N,
// the newest it lists): no network, the dependencies from the module
// cache, whose compiled packages the build cache already holds. The
// version is removed from the module cache afterwards, so that no later
// run finds a stale copy. The installed selfheal must then name that
// version (selfheal version reads it from the build info). The README's
// npx, npm and release lines are e2e/npm.test.mjs's.
func TestReadmeGoInstall(t *testing.T) {
	goBin, root, md := readme(t)
	var install []string
	for _, line := range installLines(md) {
		if strings.HasPrefix(line, "go install ") {
			install = append(install, line)
		}
	}
	if len(install) != 1 {
		t.Fatalf("README.md's Install has %d go install lines, want 1: %q", len(install), install)
	}
	words := strings.Fields(install[0])
	const mod = "github.com/selfheal/selfheal"
	if len(words) != 3 || !strings.HasPrefix(words[2], mod+"/") || !strings.HasSuffix(words[2], "@latest") {
		t.Fatalf("README.md: %q is not go install %s/…@latest", install[0], mod)
	}

	out, err := exec.Command(goBin, "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	modcache := strings.TrimSpace(string(out))
	tmp := t.TempDir()
	proxy := filepath.Join(tmp, "proxy")
	version := fmt.Sprintf("v0.0.1-readme.%d", time.Now().UnixNano())
	t.Cleanup(func() {
		os.RemoveAll(filepath.Join(modcache, mod+"@"+version))
		for _, name := range []string{version + ".info", version + ".mod", version + ".zip", version + ".ziphash", version + ".lock", "list"} {
			os.Remove(filepath.Join(modcache, "cache", "download", mod, "@v", name))
		}
	})
	if err := publish(root, filepath.Join(proxy, mod, "@v"), mod, version); err != nil {
		t.Fatal(err)
	}

	work := filepath.Join(tmp, "fresh")
	bin := filepath.Join(tmp, "bin")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(goBin, words[1:]...)
	cmd.Dir = work
	cmd.Env = append(os.Environ(),
		"GOPROXY=file://"+filepath.ToSlash(proxy), "GOFLAGS=-modcacherw", "GOBIN="+bin,
		"GONOSUMDB="+mod, "GOSUMDB=off", "GOWORK=off", "GOTOOLCHAIN=local")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", install[0], err, out)
	}
	got, err := exec.Command(filepath.Join(bin, "selfheal"), "version").CombinedOutput()
	if err != nil {
		t.Fatalf("selfheal version: %v\n%s", err, got)
	}
	if want := "selfheal " + version + " (commit unknown, built unknown, go"; !strings.HasPrefix(string(got), want) {
		t.Errorf("selfheal version printed %q, want it to start %q", got, want)
	}
}

// publish writes the module at root as version into dir, in the layout of
// a module proxy: list, .info, .mod and the .zip of the module's files
// (without .git, dist/, e2e's node_modules and a selfheal built at the root).
func publish(root, dir, mod, version string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	goMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		return err
	}
	var zbuf bytes.Buffer
	zw := zip.NewWriter(&zbuf)
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel == ".git" || rel == "dist" || d.Name() == "node_modules" {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || d.Name() == ".git" || rel == "selfheal" { // rel: a binary built here
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		w, err := zw.Create(mod + "@" + version + "/" + rel)
		if err != nil {
			return err
		}
		_, err = w.Write(data)
		return err
	})
	if err == nil {
		err = zw.Close()
	}
	if err != nil {
		return err
	}
	files := map[string][]byte{
		"list":            []byte(version + "\n"),
		version + ".info": fmt.Appendf(nil, `{"Version":%q,"Time":"2026-12-07T00:00:00Z"}`, version),
		version + ".mod":  goMod,
		version + ".zip":  zbuf.Bytes(),
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

package main

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// TestVersionInfo: the release build's stamped values come first; a build
// by go install or in a checkout answers from its build info.
func TestVersionInfo(t *testing.T) {
	platform := runtime.GOOS + "/" + runtime.GOARCH
	tests := []struct {
		name    string
		stamped [3]string // version, commit, date as -ldflags -X set them
		info    *debug.BuildInfo
		ok      bool
		want    string
	}{
		{
			name:    "goreleaser",
			stamped: [3]string{"v0.9.0", "0123456789abcdef0123456789abcdef01234567", "2026-12-07T17:43:05Z"},
			info:    &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}},
			ok:      true,
			want:    "selfheal v0.9.0 (commit 0123456789abcdef0123456789abcdef01234567, built 2026-12-07T17:43:05Z, go1.26.8 " + platform + ")",
		},
		{
			name: "go install module@v0.9.0",
			info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/selfheal/selfheal", Version: "v0.9.0"}},
			ok:   true,
			want: "selfheal v0.9.0 (commit unknown, built unknown, go1.26.8 " + platform + ")",
		},
		{
			name: "go build in a checkout with changes",
			info: &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
				{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "06101f76250cd1fc7a090d48054bc421514b4776"},
				{Key: "vcs.time", Value: "2026-12-07T17:43:05Z"}, {Key: "vcs.modified", Value: "true"},
			}},
			ok:   true,
			want: "selfheal (devel) (commit 06101f76250cd1fc7a090d48054bc421514b4776+dirty, built 2026-12-07T17:43:05Z, go1.26.8 " + platform + ")",
		},
		{
			name: "no build info",
			want: "selfheal (devel) (commit unknown, built unknown, " + runtime.Version() + " " + platform + ")",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			old := [3]string{version, commit, date}
			version, commit, date = tt.stamped[0], tt.stamped[1], tt.stamped[2]
			t.Cleanup(func() { version, commit, date = old[0], old[1], old[2] })
			if got := versionInfo(tt.info, tt.ok).String(); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestVersionCommand: selfheal version and --version print the same line
// (this test binary's own build info), and version takes no argument.
func TestVersionCommand(t *testing.T) {
	var lines []string
	for _, arg := range []string{"version", "--version"} {
		var stdout, stderr strings.Builder
		if code := run([]string{arg}, strings.NewReader(""), &stdout, &stderr); code != 0 || stderr.Len() != 0 {
			t.Fatalf("%s: exit %d, stderr %q", arg, code, stderr.String())
		}
		lines = append(lines, stdout.String())
	}
	if !strings.HasPrefix(lines[0], "selfheal ") || !strings.HasSuffix(lines[0], " "+runtime.GOOS+"/"+runtime.GOARCH+")\n") || lines[0] != lines[1] {
		t.Errorf("version printed %q, --version %q", lines[0], lines[1])
	}
	var stdout, stderr strings.Builder
	if code := run([]string{"version", "--short"}, strings.NewReader(""), &stdout, &stderr); code != 2 || stderr.String() != "selfheal version: unexpected argument \"--short\" (it takes none)\n" {
		t.Errorf("version --short: exit %d, stderr %q", code, stderr.String())
	}
}

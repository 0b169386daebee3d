package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"
)

// Stamped by the release build (.goreleaser.yaml's ldflags:
// -X main.version=... -X main.commit=... -X main.date=...). Empty in a build
// by go install or go build, which versionInfo then reads from the build
// info instead.
var (
	version string
	commit  string
	date    string
)

// buildVersion is what selfheal version prints: the release version, the
// commit it was built from (with "+dirty" when the tree had changes), when,
// and with which Go for which platform. What is not known is "unknown".
type buildVersion struct {
	Version, Commit, Date, Go, Platform string
}

// versionInfo returns the stamped values where the release build set them
// and the build info's where it did not: go install module@v1.2.3 records
// v1.2.3 as the main module's version, and a build in a git checkout
// records vcs.revision, vcs.time and vcs.modified ("(devel)" is Go's name
// for the version of a build of the module's own tree).
func versionInfo(info *debug.BuildInfo, ok bool) buildVersion {
	v := buildVersion{Version: version, Commit: commit, Date: date, Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if ok {
		if info.GoVersion != "" {
			v.Go = info.GoVersion
		}
		if v.Version == "" {
			v.Version = info.Main.Version
		}
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				if v.Commit == "" {
					v.Commit = s.Value
				}
			case "vcs.time":
				if v.Date == "" {
					v.Date = s.Value
				}
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if modified && commit == "" && v.Commit != "" {
			v.Commit += "+dirty"
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	if v.Date == "" {
		v.Date = "unknown"
	}
	return v
}

// String is the first line of selfheal version, also what --version prints.
func (v buildVersion) String() string {
	return fmt.Sprintf("selfheal %s (commit %s, built %s, %s %s)", v.Version, v.Commit, v.Date, v.Go, v.Platform)
}

// versionCommand prints the version line: selfheal version, selfheal
// --version. It takes no flags.
func versionCommand(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "selfheal version: unexpected argument %q (it takes none)\n", strings.Join(args, " "))
		return exitUsage
	}
	info, ok := debug.ReadBuildInfo()
	fmt.Fprintln(stdout, versionInfo(info, ok))
	return exitValid
}

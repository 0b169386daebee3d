package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/tailscale/hujson"
)

const wrapUsage = `usage: selfheal wrap [--client NAME | FILE] [--flags "PROXY FLAGS"] [--yes]
       selfheal unwrap [--client NAME | FILE] [--yes]

wrap puts every stdio server of an MCP client's configuration behind selfheal
proxy; unwrap takes them out again. Both print the change as a unified diff
and write it only with --yes, after a backup beside the file
(FILE.selfheal-YYYYMMDDTHHMMSSZ.bak). Clients (--client): ` + clientNames

// A client is an MCP client whose configuration wrap knows where to find:
// the files it reads, project ones (in the working directory) first.
type client struct {
	name, title string
	files       func(home, config, cwd string) []string
}

// clients are the MCP clients wrap knows, with the files their documentation
// names. Every file holds its servers in "mcpServers" (Claude Desktop,
// Claude Code, Cursor, Windsurf) or "servers" (VS Code, beside its
// "inputs"); Claude Code's ~/.claude.json also holds them per project, in
// "projects" → PATH → "mcpServers". config is os.UserConfigDir(): ~/.config
// on Linux, ~/Library/Application Support on macOS, %AppData% on Windows.
var clients = []client{
	{"claude-desktop", "Claude Desktop", func(home, config, cwd string) []string {
		return []string{filepath.Join(config, "Claude", "claude_desktop_config.json")}
	}},
	{"claude-code", "Claude Code", func(home, config, cwd string) []string {
		return []string{filepath.Join(cwd, ".mcp.json"), filepath.Join(home, ".claude.json")}
	}},
	{"cursor", "Cursor", func(home, config, cwd string) []string {
		return []string{filepath.Join(cwd, ".cursor", "mcp.json"), filepath.Join(home, ".cursor", "mcp.json")}
	}},
	{"windsurf", "Windsurf", func(home, config, cwd string) []string {
		return []string{filepath.Join(home, ".codeium", "windsurf", "mcp_config.json")}
	}},
	{"vscode", "VS Code", func(home, config, cwd string) []string {
		return []string{filepath.Join(cwd, ".vscode", "mcp.json"), filepath.Join(config, "Code", "User", "mcp.json")}
	}},
}

const clientNames = "claude-desktop, claude-code, cursor, windsurf, vscode"

// beforeReplace runs between the last check that the file is as it was
// read and the rename over it; tests change the file there.
var beforeReplace = func(path string) {}

// now is the clock of the backups' names; tests fix it.
var now = time.Now

// wrapCommand is selfheal wrap (unwrap false) and selfheal unwrap.
func wrapCommand(args []string, unwrap bool, stdout, stderr io.Writer) int {
	name := "wrap"
	if unwrap {
		name = "unwrap"
	}
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal "+name+": "+format+"\n", a...)
		return exitUsage
	}
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	clientName := fs.String("client", "", "the MCP client whose configuration to change: "+clientNames)
	yes := fs.Bool("yes", false, "write the change (after a backup beside the file); without it the diff is only shown")
	var flagsArg string
	if !unwrap {
		fs.StringVar(&flagsArg, "flags", "", `flags of selfheal proxy to put in every entry, as "--strict --log /tmp/calls.log"`)
	}
	if err := fs.Parse(args); err != nil {
		return parseError(err, fs, wrapUsage, stdout, fail)
	}
	var paths []string
	switch {
	case fs.NArg() > 1:
		return fail("one file at most, got %d: %s", fs.NArg(), strings.Join(fs.Args(), " "))
	case fs.NArg() == 1 && *clientName != "":
		return fail("name a client or a file, not both")
	case fs.NArg() == 1:
		paths = fs.Args()
	case *clientName == "":
		return fail("name a client (--client %s) or a configuration file", strings.ReplaceAll(clientNames, ", ", "|"))
	default:
		found, err := clientFiles(*clientName)
		if err != nil {
			return fail("%v", err)
		}
		paths = found
	}
	proxyFlags := strings.Fields(flagsArg)
	if err := checkWrapFlags(proxyFlags); err != nil {
		return fail("--flags: %v", err)
	}
	job := &wrapJob{unwrap: unwrap, launcher: launcher(os.Getenv, exec.LookPath, os.Executable), flags: proxyFlags}

	// Every file is read and changed in memory first: one that cannot be
	// parsed stops the command before anything is written.
	type change struct {
		path     string // the file itself, symbolic links followed
		src, out []byte
		info     os.FileInfo
		notes    []string
	}
	changes := make([]change, 0, len(paths))
	for _, p := range paths {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return fail("cannot read %s: %v", p, pathErr(err))
		}
		src, err := os.ReadFile(real)
		if err != nil {
			return fail("cannot read %s: %v", p, pathErr(err))
		}
		info, err := os.Stat(real)
		if err != nil {
			return fail("cannot read %s: %v", p, pathErr(err))
		}
		out, notes, err := job.rewrite(src)
		if err != nil {
			return fail("%s: %v; nothing written", p, err)
		}
		changes = append(changes, change{path: real, src: src, out: out, info: info, notes: notes})
	}
	for i, c := range changes {
		if i > 0 {
			fmt.Fprintln(stdout)
		}
		fmt.Fprintf(stdout, "%s:\n", paths[i])
		for _, n := range c.notes {
			fmt.Fprintf(stdout, "  %s\n", n)
		}
		if bytes.Equal(c.src, c.out) {
			fmt.Fprintln(stdout, "nothing to change")
			continue
		}
		fmt.Fprint(stdout, unifiedDiff(paths[i], c.src, c.out))
		if !*yes {
			fmt.Fprintf(stdout, "run again with --yes to write it (a backup is kept beside it)\n")
			continue
		}
		backup, err := replaceFile(c.path, c.src, c.info, c.out)
		if err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(stdout, "wrote %s (backup: %s)\n", paths[i], backup)
	}
	return exitValid
}

// pathErr drops the path an *os.PathError repeats: the message names it
// once.
func pathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// clientFiles returns the files of the client named name that exist, or an
// error naming those it looked for.
func clientFiles(name string) ([]string, error) {
	i := slices.IndexFunc(clients, func(c client) bool { return c.name == name })
	if i < 0 {
		return nil, fmt.Errorf("unknown client %q (want %s)", name, clientNames)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil, err
	}
	config, err := os.UserConfigDir()
	if err != nil {
		return nil, err
	}
	cwd, err := os.Getwd()
	if err != nil {
		return nil, err
	}
	var found []string
	candidates := clients[i].files(home, config, cwd)
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			found = append(found, p)
		}
	}
	if len(found) == 0 {
		return nil, fmt.Errorf("no configuration of %s found (looked for %s)", clients[i].title, strings.Join(candidates, " and "))
	}
	return found, nil
}

// checkWrapFlags checks the proxy flags of --flags as selfheal proxy would
// read them before a server's command: a typo is refused here, not when the
// client starts the server. --listen has no place in a stdio entry.
func checkWrapFlags(flags []string) error {
	if len(flags) == 0 {
		return nil
	}
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c, err := parseProxyConfig(fs, append(slices.Clip(flags), "--", "server"))
	if err != nil {
		return err
	}
	if c.listen != "" {
		return errors.New("--listen serves HTTP: a client's entry runs the proxy over stdio")
	}
	if len(c.command) != 1 {
		return fmt.Errorf("%q is not a flag of selfheal proxy", flags[len(flags)+2-len(c.command)])
	}
	return nil
}

// launcher is how an entry starts the proxy: "selfheal proxy" when selfheal
// is on PATH; "npx -y selfheal proxy" when this process runs through npx
// (the npm package's shim sets SELFHEAL_VIA_NPX=1 when npm exec or npx ran
// it, whose copy lives in npx's cache, not on PATH); else this executable's
// absolute path.
func launcher(getenv func(string) string, lookPath func(string) (string, error), executable func() (string, error)) []string {
	if getenv("SELFHEAL_VIA_NPX") == "1" {
		return []string{"npx", "-y", "selfheal", "proxy"}
	}
	if _, err := lookPath("selfheal"); err == nil {
		return []string{"selfheal", "proxy"}
	}
	if exe, err := executable(); err == nil {
		return []string{exe, "proxy"}
	}
	return []string{"selfheal", "proxy"}
}

// wrapJob is the change wrap or unwrap makes to each entry.
type wrapJob struct {
	unwrap   bool
	launcher []string // the entry's command and its first arguments, up to "proxy"
	flags    []string // proxy flags, before the "--" that ends them
}

// rewrite returns src with every server entry wrapped (or unwrapped), and a
// note per entry. Only the values of "command" and "args" change: the
// rest of the file, comments, order, whitespace and trailing commas, is
// kept byte for byte, so that unwrap restores what wrap changed.
func (j *wrapJob) rewrite(src []byte) ([]byte, []string, error) {
	v, err := hujson.Parse(src)
	if err != nil {
		return nil, nil, fmt.Errorf("cannot parse: %v", err)
	}
	root, ok := v.Value.(*hujson.Object)
	if !ok {
		return nil, nil, errors.New("cannot parse: not a JSON object")
	}
	var notes []string
	entries := 0
	visit := func(prefix string, servers *hujson.Value) {
		obj, ok := servers.Value.(*hujson.Object)
		if !ok {
			return
		}
		for i := range obj.Members {
			m := &obj.Members[i]
			entries++
			notes = append(notes, prefix+literalString(m.Name.Value)+": "+j.entry(&m.Value))
		}
	}
	for i := range root.Members {
		m := &root.Members[i]
		switch literalString(m.Name.Value) {
		case "mcpServers", "servers":
			visit("", &m.Value)
		case "projects": // Claude Code's ~/.claude.json: servers per project
			if projects, ok := m.Value.Value.(*hujson.Object); ok {
				for k := range projects.Members {
					p := &projects.Members[k]
					if obj, ok := p.Value.Value.(*hujson.Object); ok {
						if s := member(obj, "mcpServers"); s != nil {
							visit(literalString(p.Name.Value)+" ", s)
						}
					}
				}
			}
		}
	}
	if entries == 0 {
		notes = append(notes, `no server entries ("mcpServers" or "servers")`)
	}
	return v.Pack(), notes, nil
}

// entry wraps or unwraps one server entry and says what it did.
func (j *wrapJob) entry(v *hujson.Value) string {
	obj, ok := v.Value.(*hujson.Object)
	if !ok {
		return "left alone: not an object"
	}
	if d := member(obj, "disabled"); d != nil && d.Value.Kind() == 't' {
		return "left alone: disabled"
	}
	for _, k := range []string{"url", "serverUrl"} {
		if member(obj, k) != nil {
			return "left alone: a remote server (" + k + ")"
		}
	}
	if t := member(obj, "type"); t != nil {
		if s := literalString(t.Value); s != "stdio" {
			return fmt.Sprintf("left alone: a remote server (type %s)", s)
		}
	}
	cmd := member(obj, "command")
	if cmd == nil || cmd.Value.Kind() != '"' {
		return "left alone: no command"
	}
	argsAt := slices.IndexFunc(obj.Members, func(m hujson.ObjectMember) bool { return literalString(m.Name.Value) == "args" })
	var arr *hujson.Array
	var args []string
	if argsAt >= 0 {
		arr, ok = obj.Members[argsAt].Value.Value.(*hujson.Array)
		if !ok {
			return "left alone: args is not a list"
		}
		for _, e := range arr.Elements {
			if e.Value.Kind() != '"' {
				return "left alone: args holds a value that is not a string"
			}
			args = append(args, literalString(e.Value))
		}
	}
	prefix, wrapped := proxyPrefix(literalString(cmd.Value), args)
	switch {
	case !j.unwrap && wrapped:
		return "already behind selfheal proxy"
	case !j.unwrap:
		j.wrap(obj, cmd, argsAt)
		return "wrapped"
	case !wrapped:
		return "not behind selfheal proxy"
	case prefix < 0:
		return "left alone: selfheal proxy's flags do not parse, so the server's command is unknown"
	}
	// The server's command is args[prefix]: it goes back to "command" as
	// its literal was, the arguments after it stay, and the first of them
	// takes back the whitespace the first element had.
	cmd.Value = arr.Elements[prefix].Value
	rest := arr.Elements[prefix+1:]
	if len(rest) == 0 {
		if c := argsAt + 1; c < len(obj.Members) && literalString(obj.Members[c].Name.Value) == "command" {
			// wrap's own "args" (see wrap): the entry had none.
			obj.Members[c].Name.BeforeExtra = obj.Members[argsAt].Name.BeforeExtra
			obj.Members = slices.Delete(obj.Members, argsAt, argsAt+1)
			return "unwrapped"
		}
		arr.Elements = nil
		return "unwrapped"
	}
	rest[0].BeforeExtra = arr.Elements[0].BeforeExtra
	arr.Elements = rest
	return "unwrapped"
}

// wrap changes the entry's command to the launcher and puts the launcher's
// arguments, the proxy flags, "--" and the old command in front of its
// args (a new "args" after "command" when it had none).
func (j *wrapJob) wrap(obj *hujson.Object, cmd *hujson.Value, argsAt int) {
	added := make([]hujson.Value, 0, len(j.launcher)+len(j.flags)+1)
	for _, s := range slices.Concat(j.launcher[1:], j.flags, []string{"--"}) {
		added = append(added, hujson.Value{Value: hujson.String(s)})
	}
	added = append(added, hujson.Value{Value: cmd.Value})
	cmd.Value = hujson.String(j.launcher[0])
	if argsAt < 0 {
		// A new "args" goes just before "command", taking its place and
		// the whitespace and comments before it: unwrap knows an emptied
		// "args" in that place as wrap's and removes it, where it keeps an
		// "args": [] the file had (Claude Code writes one after "command").
		at := slices.IndexFunc(obj.Members, func(m hujson.ObjectMember) bool { return literalString(m.Name.Value) == "command" })
		c := &obj.Members[at]
		for i := 1; i < len(added); i++ {
			added[i].BeforeExtra = hujson.Extra(" ")
		}
		m := hujson.ObjectMember{
			Name:  hujson.Value{BeforeExtra: c.Name.BeforeExtra, Value: hujson.String("args"), AfterExtra: c.Name.AfterExtra},
			Value: hujson.Value{BeforeExtra: c.Value.BeforeExtra, Value: &hujson.Array{Elements: added}},
		}
		sep := hujson.Extra(" ")
		if at+1 < len(obj.Members) {
			sep = separator(obj.Members[at+1].Name.BeforeExtra)
		} else if at > 0 || bytes.IndexByte(c.Name.BeforeExtra, '\n') >= 0 {
			sep = separator(c.Name.BeforeExtra)
		}
		c.Name.BeforeExtra = sep
		obj.Members = slices.Insert(obj.Members, at, m)
		return
	}
	arr := obj.Members[argsAt].Value.Value.(*hujson.Array)
	sep := hujson.Extra(" ")
	switch {
	case len(arr.Elements) >= 2:
		sep = separator(arr.Elements[1].BeforeExtra)
	case len(arr.Elements) == 1:
		sep = separator(arr.Elements[0].BeforeExtra)
	}
	for i := range added {
		added[i].BeforeExtra = sep
	}
	if len(arr.Elements) > 0 {
		added[0].BeforeExtra = arr.Elements[0].BeforeExtra
		arr.Elements[0].BeforeExtra = sep
	} else {
		added[0].BeforeExtra = nil
	}
	arr.Elements = slices.Concat(added, arr.Elements)
}

// separator is the whitespace to put before a new element or member that
// follows one written after extra: a line break and the indentation of
// extra's last line when extra has one (comments are not copied), else a
// space.
func separator(extra hujson.Extra) hujson.Extra {
	i := bytes.LastIndexByte(extra, '\n')
	if i < 0 {
		return hujson.Extra(" ")
	}
	indent := extra[i+1:]
	indent = indent[:len(indent)-len(bytes.TrimLeft(indent, " \t"))]
	nl := "\n"
	if i > 0 && extra[i-1] == '\r' {
		nl = "\r\n"
	}
	return hujson.Extra(nl + string(indent))
}

// proxyPrefix reports whether command args already run selfheal proxy
// ("selfheal proxy ...", a path to selfheal, or "npx [-y] selfheal[@V]
// proxy ...") and how many of args come before the server's own command
// (-1 when the proxy's flags do not parse).
func proxyPrefix(command string, args []string) (int, bool) {
	base := strings.ToLower(command[strings.LastIndexAny(command, `/\`)+1:])
	base = strings.TrimSuffix(strings.TrimSuffix(base, ".exe"), ".cmd")
	i := 0
	switch base {
	case "selfheal":
	case "npx":
		for i < len(args) && strings.HasPrefix(args[i], "-") {
			i++
		}
		if i == len(args) || (args[i] != "selfheal" && !strings.HasPrefix(args[i], "selfheal@")) {
			return 0, false
		}
		i++
	default:
		return 0, false
	}
	if i == len(args) || args[i] != "proxy" {
		return 0, false
	}
	i++
	fs := flag.NewFlagSet("proxy", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	(&proxyFlags{set: map[string]bool{}}).define(fs)
	server, err := parseProxyArgs(fs, args[i:])
	if err != nil || len(server) == 0 {
		return -1, true
	}
	return len(args) - len(server), true
}

// member returns the value of obj's member named name, or nil.
func member(obj *hujson.Object, name string) *hujson.Value {
	for i := range obj.Members {
		if literalString(obj.Members[i].Name.Value) == name {
			return &obj.Members[i].Value
		}
	}
	return nil
}

// literalString is the string a JSON string literal holds, or its text
// for another literal, or "" for an object or array.
func literalString(v hujson.ValueTrimmed) string {
	lit, ok := v.(hujson.Literal)
	if !ok {
		return ""
	}
	if lit.Kind() == '"' {
		return lit.String()
	}
	return string(lit)
}

// replaceFile writes out over path, which was read as orig with info:
// the new content goes to a temporary file beside it, orig to a backup
// beside it (never over an older one), and the temporary file is renamed
// over path only if path still holds orig, so that a client or editor that
// wrote it in between loses nothing. It returns the backup's path.
func replaceFile(path string, orig []byte, info os.FileInfo, out []byte) (backup string, err error) {
	dir, base := filepath.Split(path)
	perm := info.Mode().Perm()
	tmp, err := os.CreateTemp(dir, "."+base+".selfheal-*")
	if err != nil {
		return "", fmt.Errorf("cannot write %s: %v; nothing written", path, pathErr(err))
	}
	defer func() {
		if err != nil {
			os.Remove(tmp.Name())
			if backup != "" {
				os.Remove(backup)
				backup = ""
			}
		}
	}()
	if err := writeSynced(tmp, out, perm); err != nil {
		return "", fmt.Errorf("cannot write %s: %v; nothing written", path, pathErr(err))
	}
	backup = path + ".selfheal-" + now().UTC().Format("20060102T150405Z") + ".bak"
	b, err := os.OpenFile(backup, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		backup = ""
		return "", fmt.Errorf("cannot write the backup of %s: %v; nothing written", path, err)
	}
	if err := writeSynced(b, orig, perm); err != nil {
		return backup, fmt.Errorf("cannot write the backup of %s: %v; nothing written", path, err)
	}
	beforeReplace(path)
	cur, err := os.ReadFile(path)
	if err != nil {
		return backup, fmt.Errorf("cannot read %s again: %v; nothing written", path, pathErr(err))
	}
	st, err := os.Stat(path)
	if err != nil || !bytes.Equal(cur, orig) || !st.ModTime().Equal(info.ModTime()) || st.Size() != info.Size() {
		return backup, fmt.Errorf("%s changed while selfheal was changing it; nothing written: run it again", path)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return backup, fmt.Errorf("cannot write %s: %v; nothing written", path, err)
	}
	return backup, nil
}

// writeSynced writes data to f with permissions perm, flushes it to disk
// and closes f.
func writeSynced(f *os.File, data []byte, perm os.FileMode) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

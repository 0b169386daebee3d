// Command goclient is the Go SDK v1.8 client of e2e/revisions.test.mjs: it
// connects to e2e/fixtures/deploy-server.mjs (directly, or through selfheal
// proxy in one of its modes) as a user of the SDK would, in the SDK's
// default revision (2026-07-28, falling back to 2025-11-25) unless
// -protocol says otherwise, runs the test's script of calls, and prints one
// JSON line per step on stdout for the test to assert on:
//
//	{"step":"connect","protocolVersion":"2026-07-28"}
//	{"step":"list","tools":["add_tool",...]}                 (with -list)
//	{"step":"deploy valid","result":{...}}                    (a CallToolResult)
//	{"step":"deploy near miss","error":"..."}                 (an SDK error)
//	{"step":"list_changed","seen":true}
//
// Usage:
//
//	goclient [-list] [-protocol V] -url URL
//	goclient [-list] [-protocol V] -- CMD ARGS...   (a stdio server)
//
// A failure to connect is printed as the connect step's error and the
// command exits 1; a call's failure is its step's error and the script goes
// on, so that one line says what each call got.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// step is one output line.
type step struct {
	Step            string              `json:"step"`
	ProtocolVersion string              `json:"protocolVersion,omitempty"`
	Tools           []string            `json:"tools,omitempty"`
	Result          *mcp.CallToolResult `json:"result,omitempty"`
	Seen            *bool               `json:"seen,omitempty"`
	Error           string              `json:"error,omitempty"`
}

// The script: the same calls as the TypeScript client's in
// revisions.test.mjs, under the same step names.
var (
	before = []call{
		{"deploy valid", "deploy", `{"env":"dev","dryRun":true}`},
		{"add_user valid", "add_user", `{"name":"ada","age":36}`},
		{"add_user bad", "add_user", `{"age":"old"}`},
		{"deploy near miss", "deploy", `{"env":"dev","dryrun":true}`},
		{"add_tool", "add_tool", `{}`},
	}
	after = []call{
		{"rollback near miss", "rollback", `{"env":"dev","dryrun":true}`},
		{"release near miss", "release", `{"version":"2.0","dryrun":true}`},
		{"rollback valid", "rollback", `{"env":"prod","dryRun":true}`},
		{"release valid", "release", `{"version":"2.0","dryRun":true}`},
	}
)

type call struct{ step, tool, args string }

func main() {
	url := flag.String("url", "", "the server's Streamable HTTP endpoint (else the command after the flags, over stdio)")
	list := flag.Bool("list", false, "list the tools before calling")
	protocol := flag.String("protocol", "", "the protocol version to ask for (default: the SDK's)")
	flag.Parse()
	out := json.NewEncoder(os.Stdout)
	emit := func(s step) {
		if err := out.Encode(s); err != nil {
			os.Exit(2)
		}
	}
	var transport mcp.Transport
	switch {
	case *url != "" && flag.NArg() == 0:
		transport = &mcp.StreamableClientTransport{Endpoint: *url}
	case *url == "" && flag.NArg() > 0:
		cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
		cmd.Stderr = os.Stderr // the server's (or the proxy's) log, for the test's messages
		transport = &mcp.CommandTransport{Command: cmd}
	default:
		fmt.Fprintln(os.Stderr, "usage: goclient [-list] [-protocol V] (-url URL | -- CMD ARGS...)")
		os.Exit(2)
	}

	// Every step is bounded, so that a proxy that loses an answer fails the
	// test with the step that waited, not with the test's own timeout.
	const bound = 20 * time.Second
	changed := make(chan struct{}, 16)
	client := mcp.NewClient(&mcp.Implementation{Name: "selfheal-e2e-goclient", Version: "1.0.0"}, &mcp.ClientOptions{
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} },
	})
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	session, err := client.Connect(ctx, transport, &mcp.ClientSessionOptions{ProtocolVersion: *protocol})
	cancel()
	if err != nil {
		emit(step{Step: "connect", Error: err.Error()})
		os.Exit(1)
	}
	defer session.Close()
	emit(step{Step: "connect", ProtocolVersion: session.InitializeResult().ProtocolVersion})

	if *list {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		res, err := session.ListTools(ctx, nil)
		cancel()
		s := step{Step: "list"}
		if err != nil {
			s.Error = err.Error()
		} else {
			for _, t := range res.Tools {
				s.Tools = append(s.Tools, t.Name)
			}
		}
		emit(s)
	}
	run := func(c call) {
		ctx, cancel := context.WithTimeout(context.Background(), bound)
		defer cancel()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: c.tool, Arguments: json.RawMessage(c.args)})
		s := step{Step: c.step, Result: res}
		if err != nil {
			s.Error = err.Error()
		}
		emit(s)
	}
	for _, c := range before {
		run(c)
	}
	seen := true
	select {
	case <-changed:
	case <-time.After(bound):
		seen = false
	}
	emit(step{Step: "list_changed", Seen: &seen})
	for _, c := range after {
		run(c)
	}
}

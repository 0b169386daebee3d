package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

const callUsage = "usage: selfheal call [--json] [--timeout D] [--protocol-version V] -- COMMAND [ARG...] TOOL ARGS.json"

// callAbout is what -h says beyond the usage line: what the command does
// and which MCP revision it speaks.
const callAbout = `
Starts the stdio MCP server COMMAND, calls TOOL once with the arguments in
ARGS.json ("-": standard input) and prints what a model reads, parsed.

It speaks MCP 2026-07-28 (server/discover, then requests that each carry
the revision) and falls back to 2025-11-25 (initialize) for a server that
does not; --protocol-version 2025-11-25 (or an older revision) starts with
initialize in that revision. A server's request for input before the tool
can finish (resultType input_required: an elicitation, a sampling, roots)
is printed, not answered, and the call does not succeed.

Exit 0 when the call succeeded, 1 when it did not (an error result, a
JSON-RPC error, input required), 2 for a usage error or a server that
cannot be reached.
`

// callCommand implements `selfheal call`: it starts the stdio MCP server
// COMMAND, lists its tools, calls TOOL once (with gosdk.CallTool, which reads the envelope
// back as an *envelope.CallError) with the arguments in the file ARGS.json ("-":
// standard input), and prints what a model would read, parsed: the code,
// the fields, the recovery. It speaks go-sdk v1.8's client's revision,
// 2026-07-28 falling back to 2025-11-25, or the one --protocol-version
// asks for; it answers no input request of the server (its client's
// multi-round-trip handling is off), so an input_required result is
// printed as such. It returns 0 when the call succeeded (a warning
// included), 1 when it did not (an error result, a JSON-RPC error from the
// server, input required), 2 for a usage error or when the server cannot
// be reached.
func callCommand(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("call", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	asJSON := fs.Bool("json", false, "print one JSON object: isError, the result's text, and its envelope parsed (tool_error or validation_error, each with its code), or the server's JSON-RPC error, or what it asks for (input_required)")
	timeout := fs.Duration("timeout", 30*time.Second, "how long to wait for the server to start and answer")
	protocol := fs.String("protocol-version", "", "the MCP revision to ask for: "+strings.Join(mcp.SupportedProtocolVersions(), ", ")+" (default 2026-07-28, falling back to 2025-11-25 for a server that does not speak it)")
	fail := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "selfheal call: "+format+"\n", a...)
		return exitUsage
	}
	flags, command, dashed := splitCommand(args)
	if err := fs.Parse(flags); err != nil {
		return parseError(err, fs, callUsage+"\n"+callAbout, stdout, fail)
	}
	switch {
	case fs.NArg() > 0:
		return fail("unexpected argument %q before --: %s", fs.Arg(0), strings.TrimPrefix(callUsage, "usage: "))
	case !dashed || len(command) < 3:
		return fail("want a server command, a tool and an arguments file after --: %s", strings.TrimPrefix(callUsage, "usage: "))
	case *timeout <= 0:
		return fail("--timeout must be positive, not %v", *timeout)
	case *protocol != "" && !slices.Contains(mcp.SupportedProtocolVersions(), *protocol):
		return fail("--protocol-version %q: want one of %s", *protocol, strings.Join(mcp.SupportedProtocolVersions(), ", "))
	}
	tool, argsPath := command[len(command)-2], command[len(command)-1]
	command = command[:len(command)-2]
	raw, err := readArgs(argsPath, stdin)
	if err != nil {
		return fail("%v", err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	cmd := exec.Command(command[0], command[1:]...)
	var serverErr tailBuffer
	cmd.Stderr = io.MultiWriter(stderr, &serverErr)
	// The client answers no input request: a tool that asks for one is
	// reported, not fed an answer selfheal would have to make up.
	client := mcp.NewClient(&mcp.Implementation{Name: "selfheal call", Version: "1"},
		&mcp.ClientOptions{MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second},
		&mcp.ClientSessionOptions{ProtocolVersion: *protocol})
	if err != nil {
		return fail("%v", serverFailure("starting "+command[0], err, ctx, &serverErr))
	}
	defer session.Close()
	// List the tools first, as a model's client does: a proxy in front of
	// the server checks only the calls of tools it has seen listed.
	var opts []gosdk.CallOption
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			return fail("%v", serverFailure("listing tools", err, ctx, &serverErr))
		}
		if t.Name == tool {
			opts = append(opts, gosdk.WithTool(t))
		}
	}
	res, err := gosdk.CallTool(ctx, session, &mcp.CallToolParams{Name: tool, Arguments: raw}, opts...)
	var failed *envelope.CallError
	var rpcErr *jsonrpc.Error
	switch {
	case errors.Is(err, gosdk.ErrInputRequired):
		return printCall(stdout, callOutput{InputRequired: inputRequests(res)}, *asJSON)
	case errors.As(err, &failed):
		return printCall(stdout, callOutput{IsError: true, Text: failed.Text, Failed: failed}, *asJSON)
	case errors.As(err, &rpcErr):
		// The server refused the call itself, as servers without selfheal
		// do for bad arguments: the call failed, not the tool.
		return printCall(stdout, callOutput{RPCError: &rpcError{Code: rpcErr.Code, Message: rpcErr.Message}}, *asJSON)
	case err != nil:
		return fail("%v", serverFailure("calling "+tool, err, ctx, &serverErr))
	}
	out := callOutput{IsError: res.IsError, Text: callText(res)}
	out.Warning = gosdk.Warning(res) // a CallError, as an error is: one printer shows both
	return printCall(stdout, out, *asJSON)
}

// readArgs reads the call's arguments: a JSON value, from a file or "-".
func readArgs(path string, stdin io.Reader) (json.RawMessage, error) {
	var data []byte
	var err error
	if path == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, err
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("%s: the arguments are not JSON", path)
	}
	return json.RawMessage(data), nil
}

// callText is the text of a result's text blocks, in order.
func callText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// callOutput is what `selfheal call` prints: a failed call's envelope
// (Failed), or a result with perhaps a warning, or the server's JSON-RPC
// error, or what the server asked for instead of finishing.
type callOutput struct {
	IsError       bool
	Text          string
	Failed        *envelope.CallError
	Warning       *envelope.CallError // a tool_error riding on a success
	RPCError      *rpcError
	InputRequired []inputRequest // nil unless the result is input_required
}

// inputRequest is one request of an input_required result: its id, the
// method it stands for and, for an elicitation, what it asks the user.
type inputRequest struct {
	ID      string `json:"id"`
	Method  string `json:"method"`
	Message string `json:"message,omitempty"`
	URL     string `json:"url,omitempty"`
}

// inputRequests lists the input requests of res, by id, as they came on
// the wire ({"method": …, "params": …} each).
func inputRequests(res *mcp.CallToolResult) []inputRequest {
	var wire map[string]struct {
		Method string `json:"method"`
		Params struct {
			Message string `json:"message"`
			URL     string `json:"url"`
		} `json:"params"`
	}
	if data, err := json.Marshal(res.InputRequests); err == nil {
		_ = json.Unmarshal(data, &wire) // go-sdk's own JSON: it reads back
	}
	out := []inputRequest{}
	for _, id := range slices.Sorted(maps.Keys(res.InputRequests)) {
		w := wire[id]
		out = append(out, inputRequest{ID: id, Method: cmp.Or(w.Method, "unknown"), Message: w.Params.Message, URL: w.Params.URL})
	}
	return out
}

type rpcError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
}

// The --json form, with the names of the wire contract's elements.
type (
	jsonOutput struct {
		IsError       bool            `json:"isError"`
		Text          string          `json:"text,omitempty"`
		ToolError     *jsonToolError  `json:"tool_error,omitempty"`
		Validation    *jsonValidation `json:"validation_error,omitempty"`
		RPCError      *rpcError       `json:"rpc_error,omitempty"`
		InputRequired []inputRequest  `json:"input_required,omitempty"`
	}
	jsonToolError struct {
		Code       envelope.Code     `json:"code"`
		Severity   envelope.Severity `json:"severity"`
		Message    string            `json:"message"`
		Recovery   string            `json:"recovery,omitempty"`
		Actions    []string          `json:"actions,omitempty"`
		Details    []jsonDetail      `json:"details,omitempty"`
		RetryAfter float64           `json:"retry_after_seconds,omitempty"`
	}
	jsonDetail struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	// jsonValidation carries its code although the XML has none, as
	// envelope.CallError does: a script reads .code of either envelope.
	jsonValidation struct {
		Code     envelope.Code             `json:"code"`
		Action   string                    `json:"action"`
		Fields   []jsonField               `json:"fields"`
		More     string                    `json:"more,omitempty"`
		Server   string                    `json:"server_message,omitempty"`
		Contract []envelope.ContractChange `json:"contract_changes,omitempty"`
		Recovery string                    `json:"recovery"`
	}
	jsonField struct {
		Name string `json:"name"`
		Text string `json:"text"`
	}
)

func (out callOutput) json() jsonOutput {
	j := jsonOutput{IsError: out.IsError, Text: out.Text, RPCError: out.RPCError, InputRequired: out.InputRequired}
	switch f := out.Failed; {
	case f != nil && f.Code == envelope.ValidationErrorCode:
		jv := &jsonValidation{Code: f.Code, Action: f.Action, Fields: []jsonField{}, More: f.More, Server: f.ServerMessage, Recovery: f.Recovery}
		for _, fl := range f.Fields {
			jv.Fields = append(jv.Fields, jsonField{fl.Name, fl.Text})
		}
		if f.Contract != nil {
			jv.Contract = f.Contract.Changes
		}
		j.Validation = jv
	case f != nil:
		j.ToolError = jsonToolErrorOf(f)
	case out.Warning != nil:
		j.ToolError = jsonToolErrorOf(out.Warning)
	}
	return j
}

func jsonToolErrorOf(e *envelope.CallError) *jsonToolError {
	jt := &jsonToolError{Code: e.Code, Severity: e.Severity, Message: e.Message, Recovery: e.Recovery, Actions: e.Actions, RetryAfter: e.RetryAfter.Seconds()}
	for _, d := range e.Details {
		jt.Details = append(jt.Details, jsonDetail{d.Key, d.Value})
	}
	return jt
}

// printCall prints out and returns the exit status it stands for.
func printCall(w io.Writer, out callOutput, asJSON bool) int {
	status := exitValid
	if out.IsError || out.RPCError != nil || out.InputRequired != nil {
		status = exitInvalid
	}
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out.json()); err != nil {
			return exitUsage
		}
		return status
	}
	switch f := out.Failed; {
	case out.InputRequired != nil:
		fmt.Fprintln(w, "input_required: the server asks for input before the tool can finish; selfheal call gives none")
		for _, r := range out.InputRequired {
			fmt.Fprintf(w, "  %s: %s", r.ID, r.Method)
			for _, s := range []string{r.Message, r.URL} {
				if s != "" {
					fmt.Fprintf(w, ": %s", s)
				}
			}
			fmt.Fprintln(w)
		}
	case out.RPCError != nil:
		fmt.Fprintf(w, "JSON-RPC error %d: %s\n", out.RPCError.Code, out.RPCError.Message)
	case f != nil && f.Code == envelope.ValidationErrorCode:
		fmt.Fprintf(w, "%s %s\n", f.Code, f.Action)
		for _, fl := range f.Fields {
			fmt.Fprintf(w, "  %s: %s\n", fl.Name, fl.Text)
		}
		if f.More != "" {
			fmt.Fprintf(w, "  %s\n", f.More)
		}
		if f.ServerMessage != "" {
			fmt.Fprintf(w, "server_message: %s\n", f.ServerMessage)
		}
		if f.Contract != nil {
			for _, c := range f.Contract.Changes {
				fmt.Fprintf(w, "contract %s: %s\n", c.Severity, c.Description)
			}
		}
		fmt.Fprintf(w, "recovery: %s\n", f.Recovery)
	case f != nil:
		printToolError(w, f)
	case out.Warning != nil:
		fmt.Fprintln(w, "warning (the call succeeded):")
		printToolError(w, out.Warning)
		fmt.Fprintf(w, "result:\n%s\n", strings.TrimSpace(textWithout(out.Text)))
	default:
		fmt.Fprintln(w, out.Text)
	}
	return status
}

func printToolError(w io.Writer, e *envelope.CallError) {
	fmt.Fprintf(w, "%s (%s)\nmessage: %s\n", e.Code, e.Severity, e.Message)
	if e.Recovery != "" {
		fmt.Fprintf(w, "recovery: %s\n", e.Recovery)
	}
	if len(e.Actions) > 0 {
		fmt.Fprintf(w, "actions: %s\n", strings.Join(e.Actions, ", "))
	}
	for _, d := range e.Details {
		fmt.Fprintf(w, "detail %s: %s\n", d.Key, d.Value)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(w, "retry_after: %v\n", e.RetryAfter)
	}
}

// textWithout returns a result's text without its <tool_error> envelope:
// what a warning accompanies.
func textWithout(text string) string {
	i := strings.Index(text, "<tool_error")
	j := strings.Index(text, "</tool_error>")
	if i < 0 || j < i {
		return text
	}
	return text[:i] + text[j+len("</tool_error>"):]
}

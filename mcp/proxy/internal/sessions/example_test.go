//go:build unix

package sessions_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// A client starts a session over HTTP, whose MCP server is a stdio
// process, then calls a tool without a required field. The proxy listed
// the tools itself after initialization, so the call is judged, and the
// client gets selfheal's answer in place of the server's terse rejection.
func Example() {
	p, err := proxy.New()
	if err != nil {
		panic(err)
	}
	srv, err := p.CommandHandler(func() *exec.Cmd {
		// The stdio MCP server of each session: this program run again
		// (see init below), as "npx some-mcp-server" would be.
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "SESSIONS_EXAMPLE_SERVER=1")
		return cmd
	}, 0)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	front := httptest.NewServer(srv)
	defer front.Close()

	var session string
	post := func(body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, front.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json") // a JSON answer, not a stream
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		session = resp.Header.Get("Mcp-Session-Id")
		return resp.StatusCode, string(answer)
	}
	status, answer := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"1"}}}`)
	fmt.Println(status, answer)
	status, _ = post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Println(status)

	_, answer = post(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/a"}}}`)
	var resp struct {
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	json.Unmarshal([]byte(answer), &resp)
	fmt.Println("isError", resp.Result.IsError)
	fmt.Println(resp.Result.Content[0].Text)
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"example","version":"1"}}}
	// 202
	// isError true
	// <validation_error action="write_file">
	//   <field name="content">You sent: nothing. Expected a string.</field>
	//   <server_message>MCP error -32602: Invalid arguments for tool write_file</server_message>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

// A client of revision 2026-07-28 has no session: each POST names its
// revision, and a process of the server's serves it. This server speaks
// only the session era: the proxy initializes it, answers server/discover
// from its answer, and completes the results as the revision requires
// (resultType). The call without content gets selfheal's answer, as in a
// session.
func Example_stateless() {
	p, err := proxy.New()
	if err != nil {
		panic(err)
	}
	srv, err := p.CommandHandler(func() *exec.Cmd {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "SESSIONS_EXAMPLE_SERVER=1")
		return cmd
	}, 0)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	front := httptest.NewServer(srv)
	defer front.Close()

	// The revision, the client and its capabilities, in every request.
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",` +
		`"io.modelcontextprotocol/clientInfo":{"name":"example","version":"1"},` +
		`"io.modelcontextprotocol/clientCapabilities":{}}`
	post := func(method, name, params string) (int, string) {
		body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":{` + params + meta + `}}`
		req, _ := http.NewRequest(http.MethodPost, front.URL, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json")
		// The headers repeat the body, for whatever routes the request.
		req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
		req.Header.Set("Mcp-Method", method)
		if name != "" {
			req.Header.Set("Mcp-Name", name)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			panic(err)
		}
		defer resp.Body.Close()
		answer, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(answer)
	}
	status, answer := post("server/discover", "", "")
	fmt.Println(status, answer)

	_, answer = post("tools/call", "write_file", `"name":"write_file","arguments":{"path":"/tmp/a"},`)
	var resp struct {
		Result struct {
			Content    []struct{ Text string }
			IsError    bool
			ResultType string
		}
	}
	json.Unmarshal([]byte(answer), &resp)
	fmt.Println("resultType", resp.Result.ResultType, "isError", resp.Result.IsError)
	fmt.Println(resp.Result.Content[0].Text)
	// Output:
	// 200 {"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-06-18"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"example","version":"1"}},"resultType":"complete","ttlMs":0,"cacheScope":"private"}}
	// resultType complete isError true
	// <validation_error action="write_file">
	//   <field name="content">You sent: nothing. Expected a string.</field>
	//   <server_message>MCP error -32602: Invalid arguments for tool write_file</server_message>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

// init makes this program the example's stdio MCP server when it is run
// as one: it serves its standard input and output, and exits.
func init() {
	if os.Getenv("SESSIONS_EXAMPLE_SERVER") == "1" {
		exampleServer(os.Stdin, os.Stdout)
		os.Exit(0)
	}
}

// exampleServer is a stdio MCP server of revision 2025-06-18 with one
// tool: it declares tools at initialize, lists its one tool, rejects a call
// without content as a TypeScript server does, and any method it does not
// know. It ends when its input does.
func exampleServer(in io.Reader, out io.Writer) {
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var req struct {
			ID     json.RawMessage
			Method string
			Params struct{ Arguments map[string]any }
		}
		json.Unmarshal(lines.Bytes(), &req)
		switch {
		case req.ID == nil: // a notification
		case req.Method == "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"example","version":"1"}}}`+"\n", req.ID)
		case req.Method == "tools/list":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"write_file","inputSchema":`+
				`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},`+
				`"required":["path","content"],"additionalProperties":false}}]}}`+"\n", req.ID)
		case req.Method == "tools/call" && req.Params.Arguments["content"] == nil:
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Invalid arguments for tool write_file"}}`+"\n", req.ID)
		case req.Method == "tools/call":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`+"\n", req.ID)
		default: // server/discover among others: of a later revision
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"Method not found"}}`+"\n", req.ID)
		}
	}
}

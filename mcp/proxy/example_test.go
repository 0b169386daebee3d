package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// A client lists the tools of a server through the proxy, then calls one
// without a required field. The call reaches the server, which rejects it with
// a terse JSON-RPC error; the client receives selfheal's answer in its
// place, with what the server said kept. The valid call reaches the
// server, and its result comes back unchanged.
func Example() {
	p, err := proxy.New()
	if err != nil {
		panic(err)
	}
	clientOut, toProxy := io.Pipe()  // the client writes its requests to toProxy
	fromProxy, clientIn := io.Pipe() // and reads the answers from fromProxy
	serverOut, serverW := io.Pipe()  // the server writes to serverW
	serverR, serverIn := io.Pipe()   // and reads its requests from serverR
	go exampleServer(serverR, serverW)
	done := make(chan error)
	go func() { done <- p.Serve(context.Background(), clientOut, clientIn, serverOut, serverIn) }()

	answers := bufio.NewReader(fromProxy)
	send := func(line string) string {
		io.WriteString(toProxy, line+"\n")
		answer, _ := answers.ReadString('\n')
		return answer
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)

	bad := send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/a"}}}`)
	var resp struct {
		ID     int
		Result struct {
			Content []struct{ Text string }
			IsError bool
		}
	}
	json.Unmarshal([]byte(bad), &resp)
	fmt.Println("id", resp.ID, "isError", resp.Result.IsError)
	fmt.Println(resp.Result.Content[0].Text)

	fmt.Print(send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/tmp/a","content":"hi"}}}`))

	toProxy.Close() // the client is done: the proxy closes the server's input
	fmt.Println("Serve:", <-done)
	// Output:
	// id 2 isError true
	// <validation_error action="write_file">
	//   <field name="content">You sent: nothing. Expected a string.</field>
	//   <server_message>MCP error -32602: Invalid arguments for tool write_file</server_message>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
	// {"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"done"}]}}
	// Serve: <nil>
}

// exampleServer is a stdio MCP server with one tool: it lists it, rejects
// a call without content, as a TypeScript server does, and answers the
// others "done". It ends when its input does.
func exampleServer(in io.Reader, out io.WriteCloser) {
	defer out.Close()
	lines := bufio.NewScanner(in)
	for lines.Scan() {
		var req struct {
			ID     json.RawMessage
			Method string
			Params struct{ Arguments map[string]any }
		}
		json.Unmarshal(lines.Bytes(), &req)
		if _, ok := req.Params.Arguments["content"]; req.Method == "tools/call" && !ok {
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"Invalid arguments for tool write_file"}}`+"\n", req.ID)
			continue
		}
		switch req.Method {
		case "tools/list":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"write_file","inputSchema":`+
				`{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},`+
				`"required":["path","content"],"additionalProperties":false}}]}}`+"\n", req.ID)
		case "tools/call":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"done"}]}}`+"\n", req.ID)
		}
	}
}

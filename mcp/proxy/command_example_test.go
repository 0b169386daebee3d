package proxy_test

import (
	"fmt"
	"os/exec"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// A CommandServer serves a stdio MCP server over Streamable HTTP, a
// process per session, one kept warm. A Proxy not made by proxy.New is
// refused at setup, not on the first request.
func ExampleProxy_CommandHandler() {
	start := func() *exec.Cmd { return exec.Command("my-mcp-server", "--stdio") }
	_, err := (&proxy.Proxy{}).CommandHandler(start, 1)
	fmt.Println(err)

	p, err := proxy.New()
	if err != nil {
		panic(err)
	}
	srv, err := p.CommandHandler(start, 0)
	if err != nil {
		panic(err)
	}
	defer srv.Close()
	// http.ListenAndServe("localhost:8080", srv)
	fmt.Println("serving")
	// Output:
	// proxy: CommandHandler needs a Proxy made by proxy.New
	// serving
}

package wire_test

import (
	"fmt"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// A message is read for what the proxy needs of it; the ids "\u0061" and
// "a" are one id, as a JSON parser reads them.
func Example() {
	m, ok := wire.Decode([]byte(`{"jsonrpc":"2.0","id":"\u0061","method":"tools/call","params":{"name":"echo","arguments":{"x":[1]}}}` + "\n"))
	key, _ := wire.IDKey(m.ID)
	fmt.Println(ok, m.Method, "response", m.IsResponse(), "id key", key)
	fmt.Println("tool", m.Call.Name, "arguments", string(m.Call.Args), "depth", m.Call.Depth)
	fmt.Println(string(wire.ErrorResponse(m.ID, -32600, "Invalid request")))
	// Output:
	// true tools/call response false id key sa
	// tool echo arguments {"x":[1]} depth 2
	// {"jsonrpc":"2.0","id":"\u0061","error":{"code":-32600,"message":"Invalid request"}}
}

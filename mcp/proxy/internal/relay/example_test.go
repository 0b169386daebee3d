package relay_test

import (
	"fmt"

	"github.com/selfheal/selfheal/mcp/proxy"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
)

// Once package proxy is loaded, the session server reads a client's
// message as the stdio proxy does, and relays with what a proxy was built
// with: here no limits and no WithLimitBy.
func Example() {
	p, err := proxy.New()
	if err != nil {
		panic(err)
	}
	r := relay.Of(p)
	fmt.Println("limiter", r.Limiter != nil, "limitBy", r.LimitBy != nil)

	m, ok := relay.Decode([]byte(`{"jsonrpc":"2.0","id":"\u0061","method":"tools/call","params":{"name":"echo"}}` + "\n"))
	key, _ := relay.IDKey(m.ID)
	var name string
	relay.Members(m.Params, func(k, v []byte) {
		if string(k) == "name" {
			name = relay.Str(v)
		}
	})
	fmt.Println(ok, m.Method, "response", m.Response, "id key", key, "tool", name)
	// Output:
	// limiter false limitBy false
	// true tools/call response false id key sa tool echo
}

package relay_test

import (
	"fmt"

	"github.com/selfheal/selfheal/mcp/proxy"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
)

// The session server relays with what a proxy was built with: here no
// limits and no WithLimitBy. A Proxy that proxy.New did not make has no
// relay.
func Example() {
	p, err := proxy.New()
	if err != nil {
		panic(err)
	}
	r := relay.Of(p)
	fmt.Println("limiter", r.Limiter != nil, "limitBy", r.LimitBy != nil)
	fmt.Println(relay.Of(&proxy.Proxy{}) == nil, relay.Of("not a proxy") == nil)
	// Output:
	// limiter false limitBy false
	// true true
}

package sessions

import (
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
)

// ProxyRelay returns the relay of a new proxy.Proxy (made by proxy.New,
// with WithStrict(strict), and WithListWait(listWait) when it is not 0)
// for the tests of this package, which cannot import package proxy: it
// imports this one. The external test file proxy_test.go sets it.
var ProxyRelay func(strict bool, listWait time.Duration) *relay.Relay

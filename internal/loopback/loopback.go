package loopback

import (
	"net"
	"strings"
)

// Host reports whether host, a name or an IP address without a port or
// brackets, names this machine only: localhost (in any case) or a
// loopback address. These are the names go-sdk's servers accept.
func Host(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

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

// Addr reports whether addr, the local address a connection came in on,
// is a loopback address. A TCP address is asked by its IP, as Host asks an
// IP, rather than formatted and parsed back: the HTTP proxy asks on every
// request. Any other address is asked by its host as written.
func Addr(addr net.Addr) bool {
	if addr == nil {
		return false
	}
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp != nil {
		return tcp.IP.IsLoopback()
	}
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		host = addr.String()
	}
	return Host(host)
}

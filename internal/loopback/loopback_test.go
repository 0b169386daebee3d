package loopback

import (
	"net"
	"testing"
)

func TestHost(t *testing.T) {
	for _, tt := range []struct {
		host string
		want bool
	}{
		{"localhost", true},
		{"LocalHost", true},
		{"127.0.0.1", true},
		{"127.1.2.3", true},
		{"::1", true},
		{"::ffff:127.0.0.1", true},
		{"", false},
		{"[::1]", false}, // brackets are the caller's to strip
		{"127.0.0.1:80", false},
		{"0.0.0.0", false},
		{"::", false},
		{"10.0.0.5", false},
		{"localhost.example.com", false},
		{"example.com", false},
	} {
		if got := Host(tt.host); got != tt.want {
			t.Errorf("Host(%q) = %v, want %v", tt.host, got, tt.want)
		}
	}
}

func TestAddr(t *testing.T) {
	for _, tt := range []struct {
		addr net.Addr
		want bool
	}{
		{nil, false},
		{&net.TCPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}, true},
		{&net.TCPAddr{IP: net.ParseIP("::1"), Port: 80}, true},
		{&net.TCPAddr{IP: net.ParseIP("::ffff:127.0.0.1"), Port: 80}, true},
		{&net.TCPAddr{IP: net.ParseIP("0.0.0.0"), Port: 80}, false},
		{&net.TCPAddr{IP: net.ParseIP("10.0.0.5"), Port: 80}, false},
		{&net.UDPAddr{IP: net.ParseIP("127.0.0.1"), Port: 80}, true},
		{&net.UnixAddr{Name: "/tmp/s.sock", Net: "unix"}, false},
		{(*net.TCPAddr)(nil), false},
	} {
		if got := Addr(tt.addr); got != tt.want {
			t.Errorf("Addr(%v) = %v, want %v", tt.addr, got, tt.want)
		}
	}
}

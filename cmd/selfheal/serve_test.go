package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestConnLimit: past its bound, the listener answers a new connection
// 503 and closes it; a connection that ends makes room.
func TestConnLimit(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cl := &connLimit{Listener: ln, max: 2}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") })}
	go srv.Serve(cl)
	defer srv.Close()

	get := func(c net.Conn) string {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
			return "write: " + err.Error()
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return "read: " + err.Error()
		}
		return strings.TrimSpace(line)
	}
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	a, b := dial(), dial()
	defer b.Close()
	for _, c := range []net.Conn{a, b} {
		if got := get(c); got != "HTTP/1.1 200 OK" {
			t.Fatalf("within the bound: %q", got)
		}
	}
	c := dial()
	if got := get(c); got != "HTTP/1.1 503 Service Unavailable" {
		t.Errorf("over the bound: %q", got)
	}
	c.Close()
	a.Close()
	// The server sees a's end when it next reads it: poll, bounded.
	deadline := time.Now().Add(10 * time.Second)
	for {
		d := dial()
		got := get(d)
		d.Close()
		if got == "HTTP/1.1 200 OK" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no room after a connection ended: %q", got)
		}
	}
}

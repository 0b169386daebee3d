package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// rig runs Serve between in-memory pipes: the test plays the client and
// the server, writing their messages and reading, line by line, what the
// proxy writes to each.
type rig struct {
	t        testing.TB
	client   *io.PipeWriter // the client's messages, to the proxy
	server   *io.PipeWriter // the server's messages, to the proxy
	toClient chan string    // the lines the proxy wrote to the client
	toServer chan string    // the lines the proxy wrote to the server; closed when it closed toServer
	done     chan error     // Serve's result
	cancel   context.CancelFunc
	tcw      *io.PipeWriter // toClient's writing end, closed once Serve has returned
	tsw      *io.PipeWriter // toServer's writing end
}

// wait is how long a test waits for a line before it fails.
const wait = 10 * time.Second

func newRig(t testing.TB, opts ...proxy.Option) *rig {
	t.Helper()
	p, err := proxy.New(opts...)
	if err != nil {
		t.Fatal(err)
	}
	return serveRig(t, p)
}

func serveRig(t testing.TB, p *proxy.Proxy) *rig {
	cr, cw := io.Pipe()
	tcr, tcw := io.Pipe()
	sr, sw := io.Pipe()
	tsr, tsw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	r := &rig{
		t: t, client: cw, server: sw,
		toClient: make(chan string, 10000), toServer: make(chan string, 10000),
		done: make(chan error, 1), cancel: cancel, tcw: tcw, tsw: tsw,
	}
	go collect(tcr, r.toClient)
	go collect(tsr, r.toServer)
	go func() { r.done <- p.Serve(ctx, cr, tcw, sr, tsw) }()
	t.Cleanup(func() {
		cancel()
		cw.Close()
		sw.Close()
		tcw.Close()
		tsw.Close()
	})
	return r
}

// collect sends each line read from r to lines, and closes lines at the
// end of r.
func collect(r io.Reader, lines chan<- string) {
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			lines <- line
		}
		if err != nil {
			close(lines)
			return
		}
	}
}

// fromClient writes lines as the client.
func (r *rig) fromClient(lines ...string) {
	r.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.client, l); err != nil {
			r.t.Fatalf("client write: %v", err)
		}
	}
}

// fromServer writes lines as the server.
func (r *rig) fromServer(lines ...string) {
	r.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(r.server, l); err != nil {
			r.t.Fatalf("server write: %v", err)
		}
	}
}

// next returns the next line of ch.
func (r *rig) next(ch chan string, what string) string {
	r.t.Helper()
	select {
	case l, ok := <-ch:
		if !ok {
			r.t.Fatalf("%s: the stream ended", what)
		}
		return l
	case <-time.After(wait):
		r.t.Fatalf("%s: no line within %v", what, wait)
	}
	return ""
}

// atServer returns the next line the server got.
func (r *rig) atServer() string { r.t.Helper(); return r.next(r.toServer, "at the server") }

// atClient returns the next line the client got.
func (r *rig) atClient() string { r.t.Helper(); return r.next(r.toClient, "at the client") }

// passes checks that line, sent by the client, reaches the server as it is.
func (r *rig) passes(line string) {
	r.t.Helper()
	r.fromClient(line)
	if got := r.atServer(); got != line {
		r.t.Fatalf("forwarded\n got %.300q\nwant %.300q", got, line)
	}
}

// returns checks that line, sent by the server, reaches the client as it is.
func (r *rig) returns(line string) {
	r.t.Helper()
	r.fromServer(line)
	if got := r.atClient(); got != line {
		r.t.Fatalf("returned\n got %.300q\nwant %.300q", got, line)
	}
}

// answered sends line as the client and returns the proxy's answer: the
// decoded response. A sentinel sent next must be the server's next line,
// so the call was not forwarded.
func (r *rig) answered(line string) response {
	r.t.Helper()
	r.fromClient(line)
	got := r.atClient()
	var resp response
	if err := json.Unmarshal([]byte(got), &resp); err != nil {
		r.t.Fatalf("answer %q: %v", got, err)
	}
	if !strings.HasSuffix(got, "\n") || strings.Count(got, "\n") != 1 {
		r.t.Fatalf("answer is not one line: %q", got)
	}
	r.passes(sentinel)
	return resp
}

// sentinel is a notification that the proxy forwards.
const sentinel = `{"jsonrpc":"2.0","method":"notifications/sentinel"}` + "\n"

// list has the client list the tools and the server answer with result
// (the JSON of a ListToolsResult).
func (r *rig) list(id, params, result string) {
	r.t.Helper()
	req := `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"` + params + "}\n"
	r.passes(req)
	r.returns(`{"jsonrpc":"2.0","id":` + id + `,"result":` + result + "}\n")
}

// finish ends the session as a client and a server do: the client closes
// its output, the proxy closes the server's input, the server ends.
func (r *rig) finish() {
	r.t.Helper()
	r.client.Close()
	for l := range r.toServer { // the proxy closes toServer
		r.t.Fatalf("unexpected line at the server: %.200q", l)
	}
	r.server.Close()
	select {
	case err := <-r.done:
		if err != nil {
			r.t.Fatalf("Serve: %v", err)
		}
	case <-time.After(wait):
		r.t.Fatal("Serve did not return")
	}
	r.tcw.Close()
	for l := range r.toClient {
		r.t.Fatalf("unexpected line at the client: %.200q", l)
	}
}

// response is a JSON-RPC response as the client decodes it.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
}

// noLeak fails the test if goroutines started while f ran are still
// running a moment after it returned.
func noLeak(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	before := runtime.NumGoroutine()
	f(t)
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

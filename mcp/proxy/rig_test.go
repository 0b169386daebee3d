package proxy_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy"
	"go.uber.org/goleak"
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
	// A call that waits for a listing waits for the test to answer it, not
	// for the proxy's bound, which a loaded machine could reach (a test of
	// the bound sets its own).
	opts = append([]proxy.Option{proxy.WithListWait(time.Hour)}, opts...)
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

// answered sends line as the client and returns selfheal's answer: the
// decoded response. The proxy answers the call either before forwarding it
// (a near miss, a guard's refusal, WithStrict) or in place of the server's
// rejection: then the server gets the line as it is and rejects it with
// serverRejection, and the answer must carry what the server said, which
// is taken out of the response returned (see withoutServerMessage), so
// that it reads as the answer given before forwarding. A sentinel sent
// next must be the server's next line, so the call was not forwarded
// twice.
func (r *rig) answered(line string) response {
	r.t.Helper()
	r.fromClient(line)
	var got string
	forwarded := false
	select {
	case got = <-r.toClient:
	case fwd := <-r.toServer:
		if fwd != line {
			r.t.Fatalf("forwarded\n got %.300q\nwant %.300q", fwd, line)
		}
		forwarded = true
		r.fromServer(rejectionOf(r.t, line))
		got = r.atClient()
	case <-time.After(wait):
		r.t.Fatalf("no answer and nothing forwarded within %v", wait)
	}
	resp := r.decodeAnswer(got)
	resp.Forwarded = forwarded
	if forwarded {
		resp.Result = withoutServerMessage(r.t, resp.Result, serverSaid)
	}
	r.passes(sentinel)
	return resp
}

// answeredNow sends line as the client and returns the proxy's answer,
// given before forwarding: the call never reaches the server.
func (r *rig) answeredNow(line string) response {
	r.t.Helper()
	resp := r.answered(line)
	if resp.Forwarded {
		r.t.Fatalf("forwarded, then explained: %.300q", line)
	}
	return resp
}

// explained sends line as the client and returns the answer the proxy
// gives in place of the server's rejection, without what the server said
// (see answered).
func (r *rig) explained(line string) response {
	r.t.Helper()
	resp := r.answered(line)
	if !resp.Forwarded {
		r.t.Fatalf("answered before forwarding: %.300q", line)
	}
	return resp
}

// decodeAnswer decodes an answer, which must be one line.
func (r *rig) decodeAnswer(got string) response {
	r.t.Helper()
	var resp response
	if err := json.Unmarshal([]byte(got), &resp); err != nil {
		r.t.Fatalf("answer %q: %v", got, err)
	}
	if !strings.HasSuffix(got, "\n") || strings.Count(got, "\n") != 1 {
		r.t.Fatalf("answer is not one line: %q", got)
	}
	return resp
}

// The rejection the rig's server sends for a call it is forwarded, and
// what the answer in its place must say the server said.
const (
	rejectionError = `{"code":-32602,"message":"Invalid arguments for tool: rejected by the test server"}`
	serverSaid     = "MCP error -32602: Invalid arguments for tool: rejected by the test server"
)

// rejectionOf is the server's JSON-RPC error response to the request line.
func rejectionOf(t testing.TB, line string) string {
	t.Helper()
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal([]byte(line), &req); err != nil {
		t.Fatalf("request %q: %v", line, err)
	}
	return `{"jsonrpc":"2.0","id":` + string(req.ID) + `,"error":` + rejectionError + "}\n"
}

// withoutServerMessage checks that a result carries what the server said,
// in the text's <server_message> line and beside the structured issues,
// and returns the result without them.
func withoutServerMessage(t testing.TB, result json.RawMessage, said string) json.RawMessage {
	t.Helper()
	var res map[string]any
	if err := json.Unmarshal(result, &res); err != nil {
		t.Fatal(err)
	}
	content, _ := res["content"].([]any)
	if len(content) != 1 {
		t.Fatalf("content %s", result)
	}
	block := content[0].(map[string]any)
	text, _ := block["text"].(string)
	line := "  <server_message>" + said + "</server_message>\n"
	if !strings.Contains(text, line) {
		t.Fatalf("the text does not carry %q:\n%s", line, text)
	}
	block["text"] = strings.Replace(text, line, "", 1)
	issues, _ := res["structuredContent"].(map[string]any)
	if meta, ok := res["_meta"].(map[string]any); ok {
		issues, _ = meta["selfheal/issues"].(map[string]any)
	}
	if issues == nil || issues["serverMessage"] != said {
		t.Fatalf("the structured issues do not carry %q: %s", said, result)
	}
	delete(issues, "serverMessage")
	data, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	return data
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
	// Forwarded: the call reached the server, and the answer took the
	// place of its rejection (see rig.answered).
	Forwarded bool `json:"-"`
}

// noLeak fails the test if goroutines started while f ran are still
// running a moment after it returned. Goroutines are compared by identity
// (goleak), not counted: only those f started and left behind fail it.
func noLeak(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	started := goleak.IgnoreCurrent()
	f(t)
	err := goleak.Find(started)
	for deadline := time.Now().Add(5 * time.Second); err != nil && time.Now().Before(deadline); {
		err = goleak.Find(started)
	}
	if err != nil {
		t.Fatal(err)
	}
}

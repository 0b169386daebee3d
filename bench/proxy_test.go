package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// The proxy's cost beside a direct connection, side by side:
//
//   - RoundTrip: a client sends a tools/call and waits for the server's
//     response, over in-memory pipes, directly or through mcp/proxy (the
//     call's arguments checked against the tool's schema on the way). The
//     difference per call is what the proxy adds: two more pipe hops, the
//     reading of the call, the validation (ValidationOnly measures the
//     validation alone, on the same arguments).
//   - Passthrough: 1 MiB messages streamed one way, directly or through the
//     proxy (b.SetBytes: MB/s is the throughput).

// proxyBenchTools is the fake server's tools/list result, on one line:
// gosdkSchema's users.create, and write_file for large arguments.
var proxyBenchTools = func() string {
	var schema bytes.Buffer
	if err := json.Compact(&schema, []byte(gosdkSchema)); err != nil {
		panic(err)
	}
	return `{"tools":[{"name":"users.create","inputSchema":` + schema.String() + `},` +
		`{"name":"write_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}]}`
}()

var (
	proxyBenchCall    = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"users.create","arguments":` + gosdkValid + `}}` + "\n")
	proxyBenchBadCall = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"users.create","arguments":` + gosdkInvalid + `}}` + "\n")
	proxyBenchResult  = []byte(`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"ok"}]}}` + "\n")
)

// proxyBenchServer answers every line it reads: a tools/list with the tools,
// anything else with proxyBenchResult. It ends when in does.
func proxyBenchServer(in io.Reader, out io.WriteCloser) {
	defer out.Close()
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		if bytes.Contains(line, []byte(`"tools/list"`)) {
			io.WriteString(out, `{"jsonrpc":"2.0","id":0,"result":`+proxyBenchTools+"}\n")
			continue
		}
		out.Write(proxyBenchResult)
	}
}

// proxyConn is a client's connection to a server: direct, or through a
// proxy. close ends it and waits for everything started to end.
type proxyConn struct {
	w     io.WriteCloser // the client's output
	r     *bufio.Reader  // the client's input
	close func()
}

// proxyConnect starts server (proxyBenchServer or another fake server) and
// connects a client to it, through a proxy unless p is nil. Through a
// proxy, the tools are listed first.
func proxyConnect(b *testing.B, p *proxy.Proxy, server func(in io.Reader, out io.WriteCloser)) *proxyConn {
	b.Helper()
	if p == nil {
		sr, cw := io.Pipe()
		cr, sw := io.Pipe()
		done := make(chan struct{})
		go func() { server(sr, sw); close(done) }()
		return &proxyConn{w: cw, r: bufio.NewReaderSize(cr, 64<<10), close: func() { cw.Close(); <-done }}
	}
	clientOut, cw := io.Pipe()
	cr, clientIn := io.Pipe()
	serverOut, sw := io.Pipe()
	sr, serverIn := io.Pipe()
	served := make(chan error, 1)
	go server(sr, sw)
	go func() { served <- p.Serve(context.Background(), clientOut, clientIn, serverOut, serverIn) }()
	c := &proxyConn{w: cw, r: bufio.NewReaderSize(cr, 64<<10), close: func() {
		cw.Close()
		if err := <-served; err != nil {
			b.Error(err)
		}
		clientIn.Close()
	}}
	c.w.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}` + "\n"))
	if _, err := c.r.ReadSlice('\n'); err != nil {
		b.Fatal(err)
	}
	return c
}

// roundTrip sends line and reads one line back.
func (c *proxyConn) roundTrip(b *testing.B, line []byte) []byte {
	if _, err := c.w.Write(line); err != nil {
		b.Fatal(err)
	}
	resp, err := c.r.ReadSlice('\n')
	if err != nil {
		b.Fatal(err)
	}
	return resp
}

func newBenchProxy(b *testing.B) *proxy.Proxy {
	p, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		b.Fatal(err)
	}
	return p
}

func BenchmarkProxyRoundTrip(b *testing.B) {
	for _, tc := range []struct {
		name  string
		proxy bool
		call  []byte
		want  string
	}{
		{"valid/direct", false, proxyBenchCall, `"text":"ok"`},
		{"valid/proxy", true, proxyBenchCall, `"text":"ok"`},
		{"invalid/direct", false, proxyBenchBadCall, `"text":"ok"`}, // the server's own answer, for scale
		{"invalid/proxy", true, proxyBenchBadCall, `<validation_error`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			var p *proxy.Proxy
			if tc.proxy {
				p = newBenchProxy(b)
			}
			c := proxyConnect(b, p, proxyBenchServer)
			defer c.close()
			if resp := c.roundTrip(b, tc.call); !strings.Contains(string(resp), tc.want) {
				b.Fatalf("response %s", resp)
			}
			b.ReportAllocs()
			for b.Loop() {
				c.roundTrip(b, tc.call)
			}
		})
	}
}

// The validation of the valid call's arguments alone, as the proxy does it
// (decoded with exact numbers, then validated): the part of the proxy's
// cost that is not the proxy's own.
func BenchmarkProxyValidationOnly(b *testing.B) {
	sch, err := jsonschemav6.Compile([]byte(gosdkSchema))
	if err != nil {
		b.Fatal(err)
	}
	data := []byte(gosdkValid)
	b.ReportAllocs()
	for b.Loop() {
		if sch.ValidateJSON(data) != nil {
			b.Fatal("invalid")
		}
	}
}

// BenchmarkProxyPassthrough streams 1 MiB messages one way: a result from
// the server, a notification from the client, and a tools/call of a listed
// tool with 1 MiB of content, whose arguments are decoded and validated on
// their way. The proxy reads where each message's members are (one fast
// scan); it decodes only the arguments of a call.
func BenchmarkProxyPassthrough(b *testing.B) {
	big := strings.Repeat("abcdefgh", 1<<17) // 1 MiB
	result := []byte(`{"jsonrpc":"2.0","id":9,"result":{"content":[{"type":"text","text":"` + big + `"}]}}` + "\n")
	note := []byte(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"` + big + `"}}` + "\n")
	write := []byte(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","content":"` + big + `"}}}` + "\n")
	for _, tc := range []struct {
		name       string
		proxy      bool
		fromServer bool
		msg        []byte
	}{
		{"result/direct", false, true, result},
		{"result/proxy", true, true, result},
		{"notification/direct", false, false, note},
		{"notification/proxy", true, false, note},
		{"tools_call/direct", false, false, write},
		{"tools_call/proxy", true, false, write},
	} {
		b.Run(tc.name, func(b *testing.B) {
			proxyStream(b, tc.proxy, tc.fromServer, tc.msg)
		})
	}
}

// proxyStream sends msg b.N times one way and reads it at the other end.
func proxyStream(b *testing.B, viaProxy, fromServer bool, msg []byte) {
	// in is where the sender writes, out where the receiver reads.
	var in io.WriteCloser
	var out io.Reader
	var wait func()
	if !viaProxy {
		r, w := io.Pipe()
		in, out, wait = w, r, func() {}
	} else {
		p := newBenchProxy(b)
		clientOut, cw := io.Pipe()
		cr, clientIn := io.Pipe()
		serverOut, sw := io.Pipe()
		sr, serverIn := io.Pipe()
		served := make(chan error, 1)
		go func() { served <- p.Serve(context.Background(), clientOut, clientIn, serverOut, serverIn) }()
		// The tools are listed, so that calls are checked.
		cw.Write([]byte(`{"jsonrpc":"2.0","id":0,"method":"tools/list"}` + "\n"))
		if _, err := bufio.NewReader(sr).ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		sw.Write([]byte(`{"jsonrpc":"2.0","id":0,"result":` + proxyBenchTools + "}\n"))
		if _, err := bufio.NewReader(cr).ReadString('\n'); err != nil {
			b.Fatal(err)
		}
		in, out = cw, sr
		if fromServer {
			in, out = sw, cr
		}
		wait = func() {
			cw.Close()
			sw.Close()
			<-served
			clientIn.Close()
			serverIn.Close()
		}
		go io.Copy(io.Discard, map[bool]io.Reader{true: sr, false: cr}[fromServer]) // the other side
	}
	b.SetBytes(int64(len(msg)))
	b.ReportAllocs()
	n := b.N
	sent := make(chan struct{})
	go func() {
		for range n {
			in.Write(msg)
		}
		close(sent)
	}()
	br := bufio.NewReaderSize(out, 64<<10)
	for i := 0; i < n; {
		line, err := br.ReadSlice('\n')
		if err == nil {
			i++
			if len(line) > 0 && i == n && line[len(line)-1] != '\n' {
				b.Fatal("cut")
			}
		} else if err != bufio.ErrBufferFull {
			b.Fatal(err)
		}
	}
	<-sent
	b.StopTimer()
	if !viaProxy {
		in.Close()
	}
	wait()
}

package bench

import (
	"bufio"
	"bytes"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// What a bad call costs in the proxy's default mode beside proxy.WithStrict,
// side by side, over the same pipes as BenchmarkProxyRoundTrip, in front of
// a server that checks its own input as TypeScript SDK servers do:
//
//   - invalid/default: the call is forwarded, the server rejects it with a
//     JSON-RPC -32602 error, and the proxy answers in its place (the
//     server's message kept in the answer).
//   - invalid/strict: the proxy answers before forwarding; the server is
//     never reached.
//   - valid/default: a call the server accepts, for scale.
//
// The difference between the first two is one server round trip and the
// answer replacing the rejection. The bad call has a wrong type (age is a
// string) and no unknown key: it is no near miss, which both modes answer
// before forwarding.

var (
	policyBenchBadCall   = []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"users.create","arguments":{"name": "Ann Lee", "email": "ann@example.com", "age": "36"}}}` + "\n")
	policyBenchRejection = []byte(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"MCP error -32602: Input validation error: Invalid arguments for tool users.create: Invalid input: expected number, received string at age"}}` + "\n")
)

// policyBenchServer is proxyBenchServer rejecting policyBenchBadCall with
// policyBenchRejection.
func policyBenchServer(in io.Reader, out io.WriteCloser) {
	defer out.Close()
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return
		}
		switch {
		case bytes.Contains(line, []byte(`"tools/list"`)):
			io.WriteString(out, `{"jsonrpc":"2.0","id":0,"result":`+proxyBenchTools+"}\n")
		case bytes.Equal(line, policyBenchBadCall):
			out.Write(policyBenchRejection)
		default:
			out.Write(proxyBenchResult)
		}
	}
}

func BenchmarkProxyBadCall(b *testing.B) {
	for _, tc := range []struct {
		name   string
		strict bool
		call   []byte
		want   string
	}{
		{"valid/default", false, proxyBenchCall, `"text":"ok"`},
		{"invalid/default", false, policyBenchBadCall, `<server_message>`}, // the server was asked
		{"invalid/strict", true, policyBenchBadCall, `<validation_error`},
	} {
		b.Run(tc.name, func(b *testing.B) {
			p, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)), proxy.WithStrict(tc.strict))
			if err != nil {
				b.Fatal(err)
			}
			c := proxyConnect(b, p, policyBenchServer)
			defer c.close()
			resp := string(c.roundTrip(b, tc.call))
			if !strings.Contains(resp, tc.want) || tc.strict && strings.Contains(resp, `<server_message>`) {
				b.Fatalf("response %s", resp)
			}
			b.ReportAllocs()
			for b.Loop() {
				c.roundTrip(b, tc.call)
			}
		})
	}
}

package fuzz

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy"
)

// proxyFuzz is the proxy every execution of FuzzProxy runs through: its
// compiled schemas are shared, so an execution costs the relay, not the
// compilation.
var proxyFuzz = func() *proxy.Proxy {
	// The scripted server answers none of the proxy's own listings: a call
	// that waits for one waits a moment, then passes, as when a server is
	// slow, so that the waiting path is fuzzed too.
	p, err := proxy.New(proxy.WithLogger(slog.New(slog.DiscardHandler)), proxy.WithListWait(time.Millisecond))
	if err != nil {
		panic(err)
	}
	return p
}()

// The tools the fake server lists: an open and a closed schema, and one
// that changes from one listing to the next.
var proxyTools = []string{
	`{"tools":[{"name":"write_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"dryRun":{"type":"boolean"}},"required":["path","content"]}},` +
		`{"name":"edit","inputSchema":{"type":"object","additionalProperties":false,"properties":{"path":{"type":"string","minLength":1},"n":{"type":"integer","maximum":9}},"required":["path"]},"outputSchema":{"type":"object"}}]}`,
	`{"tools":[{"name":"write_file","inputSchema":{"type":"object","properties":{"path":{"type":"string"}}}},` +
		`{"name":"broken","inputSchema":{"type":"nonsense"}}],"nextCursor":"2"}`,
}

// proxyOp builds one message of the fuzzed session from the op's byte and
// the bytes after it. seq makes each line unique.
type proxyOp struct {
	fromServer bool
	line       string
}

// proxyOps turns fuzz bytes into a sequence of messages in both
// directions: valid, invalid and malformed tool calls, listings and their
// results, notifications, responses, server requests and lines that are
// not JSON, with parts taken from the fuzz bytes themselves.
func proxyOps(data []byte) []proxyOp {
	var ops []proxyOp
	take := func(n int) string { // the next n bytes, without newlines
		n = min(n, len(data))
		s := strings.ReplaceAll(string(data[:n]), "\n", " ")
		data = data[n:]
		return s
	}
	lastList := 0
	for seq := 1; len(data) > 0 && len(ops) < 64; seq++ {
		b := data[0]
		data = data[1:]
		id := fmt.Sprint(seq)
		var op proxyOp
		switch b % 16 {
		case 0: // a valid call
			op.line = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","content":"x"}}}`
		case 1: // an invalid call
			op.line = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"edit","arguments":{"path":"","n":10,"dryrun":true}}}`
		case 2: // a call with fuzzed arguments, JSON or not
			op.line = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"write_file","arguments":` + take(int(b>>4)+4) + `}}`
		case 3: // a call cut short
			op.line = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"edit","arguments":{"path":""`
		case 4: // a call of a tool never listed, with a string id
			op.line = `{"jsonrpc":"2.0","id":"c` + id + `","method":"tools/call","params":{"name":"nope","arguments":{}}}`
		case 5: // a listing, or its second page
			lastList = seq
			params := ``
			if b&0x10 != 0 {
				params = `,"params":{"cursor":"2"}`
			}
			op.line = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/list"` + params + `}`
		case 6: // a notification, a cancellation, a response to the server
			op.line = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":` + fmt.Sprint(seq-int(b>>4)) + `,"n":` + id + `}}`
		case 7: // not JSON
			op.line = "client " + id + " " + take(int(b>>4))
		case 8: // the result of the last listing
			op.fromServer = true
			op.line = `{"jsonrpc":"2.0","id":` + fmt.Sprint(lastList) + `,"result":` + proxyTools[int(b>>4)%len(proxyTools)] + `,"n":` + id + `}`
		case 9: // a response to some earlier request
			op.fromServer = true
			op.line = `{"jsonrpc":"2.0","id":` + fmt.Sprint(max(seq-int(b>>4), 0)) + `,"result":{"content":[]},"n":` + id + `}`
		case 10:
			op.fromServer = true
			op.line = `{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"n":` + id + `}}`
		case 11: // a request of the server's, with an id the client may use too
			op.fromServer = true
			op.line = `{"jsonrpc":"2.0","id":` + fmt.Sprint(max(seq-1, 0)) + `,"method":"tools/list","params":{"n":` + id + `}}`
		case 12:
			op.fromServer = true
			op.line = "server " + id + " " + take(int(b>>4))
		case 13: // a call whose params, and whatever follows, are fuzzed
			op.line = `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call",` + take(int(b>>4)*2+8)
		case 14: // a server message whose members are fuzzed
			op.fromServer = true
			op.line = `{"jsonrpc":"2.0","id":` + id + `,` + take(int(b>>4)*2+8)
		case 15: // a call whose id is fuzzed
			op.line = `{"jsonrpc":"2.0","id":` + take(int(b>>4)%4+1) + `,"method":"tools/call","params":{"name":"edit","arguments":{"n":` + id + `}}}`
		}
		op.line += "\n"
		ops = append(ops, op)
	}
	return ops
}

// FuzzProxy runs a fuzzed interleaving of messages in both directions
// through the proxy and checks that every line comes out exactly once on
// the other side, or is answered exactly once by the proxy (never both),
// and that no direction is reordered: the server gets the client's lines
// in order, less the answered ones; the client gets the server's lines in
// order, with the proxy's answers among them.
func FuzzProxy(f *testing.F) {
	f.Add([]byte{5, 8, 0, 1, 2, '{', '}', 0, 0, 0, 3, 9, 1})
	f.Add([]byte{5, 8, 1, 10, 1, 0x15, 0x18, 1, 0, 6, 9, 11, 1})
	f.Add([]byte("\x05\x08\x02\x00\x00\x00\x00\x0f1\x0f\"a\"\x0f-0\x0fnull\x01\x0d{\"jsonrpc\":\"2.0\"}\x0e{}\x07\xff\xfe"))
	f.Add([]byte("\x05\x08\x02{\"path\":\"/a\",\"content\":1}\x22\x02[]\x42\x02\"\\u0000\"\x01\x04\x0c\x07"))
	f.Add([]byte("\x05\x08\x0d\"params\":{\"name\":\"edit\",\"arguments\":{}}}\x0d\"params\":{\"name\":\"edit\"}}  \x0e\"result\":{\"tools\":[]}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ops := proxyOps(data)
		client, server, answered := runProxy(t, ops)
		var fromClient, fromServer []string
		for _, op := range ops {
			if op.fromServer {
				fromServer = append(fromServer, op.line)
			} else {
				fromClient = append(fromClient, op.line)
			}
		}

		// The server got the client's lines in order, each at most once;
		// the ones it did not get were answered. The proxy's own listings
		// (after list_changed) are its lines, not the client's.
		server = slices.DeleteFunc(server, proxyOwn)
		want := map[string]int{} // ids that must have been answered, and how many times (fuzzed ids repeat)
		i := 0
		for _, line := range fromClient {
			if i < len(server) && server[i] == line {
				i++
				continue
			}
			id, ok := callID(line)
			if !ok {
				t.Fatalf("client line neither forwarded nor answerable: %q\nserver got %q", line, server)
			}
			want[id]++
		}
		if i != len(server) {
			t.Fatalf("the server got a line out of order or not sent: %q", server[i])
		}

		// The client got the server's lines in order, and exactly one
		// answer to each call not forwarded. A forwarded call the server
		// rejected may have its rejection replaced by the proxy's answer,
		// in the rejection's place and under its id.
		j := 0
		got := map[string]int{}
		for _, line := range client {
			if j < len(fromServer) && fromServer[j] == line {
				j++
				continue
			}
			id, ok := answered[line]
			if !ok {
				t.Fatalf("unexpected line at the client: %q", line)
			}
			if j < len(fromServer) && replaces(fromServer[j], id) {
				j++
				continue
			}
			if got[id] >= want[id] {
				t.Fatalf("answer to %s, which was forwarded or already answered: %q", id, line)
			}
			got[id]++
		}
		if j != len(fromServer) {
			t.Fatalf("the server's line %q did not reach the client in order", fromServer[j])
		}
		for id, n := range want {
			if got[id] != n {
				t.Fatalf("%d calls of id %s not forwarded, %d answered", n, id, got[id])
			}
		}
	})
}

// proxyOwn reports whether a line the server got is one of the proxy's own
// requests, which carry ids no client sends.
func proxyOwn(line string) bool {
	return strings.HasPrefix(line, `{"jsonrpc":"2.0","id":"selfheal-proxy/`)
}

// replaces reports whether the server's line is a rejection, a JSON-RPC
// error or an isError result, of the request with the given id: the only
// server line the proxy may replace with its own answer.
func replaces(line, id string) bool {
	var m struct {
		ID     json.RawMessage
		Error  json.RawMessage
		Result struct{ IsError bool }
	}
	if json.Unmarshal([]byte(line), &m) != nil || string(m.ID) != id {
		return false
	}
	return len(m.Error) > 0 || m.Result.IsError
}

// callID returns the id of a tools/call line, as the proxy echoes it.
func callID(line string) (string, bool) {
	var m struct {
		JSONRPC string
		ID      json.RawMessage
		Method  string
	}
	if json.Unmarshal([]byte(line), &m) != nil || m.Method != "tools/call" || len(m.ID) == 0 {
		return "", false
	}
	return string(m.ID), true
}

// runProxy writes the ops as client and server, in order, and returns the
// lines the client and the server got, and the client's lines that are
// the proxy's answers, with the id each answers.
func runProxy(t *testing.T, ops []proxyOp) (client, server []string, answers map[string]string) {
	cr, cw := io.Pipe()
	tcr, tcw := io.Pipe()
	sr, sw := io.Pipe()
	tsr, tsw := io.Pipe()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- proxyFuzz.Serve(ctx, cr, tcw, sr, tsw) }()
	clientLines := make(chan []string, 1)
	serverLines := make(chan []string, 1)
	go func() { clientLines <- readLines(tcr) }()
	go func() { serverLines <- readLines(tsr) }()

	for _, op := range ops {
		w := cw
		if op.fromServer {
			w = sw
		}
		if _, err := io.WriteString(w, op.line); err != nil {
			t.Fatal(err)
		}
	}
	cw.Close() // the proxy forwards what it read, then closes toServer
	server = <-serverLines
	sw.Close()
	if err := <-done; err != nil {
		t.Fatalf("Serve: %v", err)
	}
	tcw.Close()
	client = <-clientLines

	answers = map[string]string{}
	for _, line := range client {
		var resp struct {
			JSONRPC string
			ID      json.RawMessage
			Result  struct {
				Content []struct{ Type, Text string }
				IsError bool
			}
		}
		if json.Unmarshal([]byte(line), &resp) != nil || resp.JSONRPC != "2.0" || !resp.Result.IsError ||
			len(resp.Result.Content) != 1 || !strings.HasPrefix(resp.Result.Content[0].Text, "<validation_error") {
			continue
		}
		answers[line] = string(resp.ID)
	}
	return client, server, answers
}

// readLines reads r to its end, line by line.
func readLines(r io.Reader) []string {
	var lines []string
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			lines = append(lines, line)
		}
		if err != nil {
			return lines
		}
	}
}

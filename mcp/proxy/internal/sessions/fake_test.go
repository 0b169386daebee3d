//go:build unix

package sessions

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// hang bounds every wait of these tests: a deadline that only a hang
// reaches, never a timing assertion.
const hang = 20 * time.Second

// The fake server: the test binary run again as a child, speaking
// newline-delimited JSON-RPC by hand, for what examples/mcpserver does not
// do (progress, requests to the client, crashing, hanging, ignoring the
// end of its input).
const fakeEnv = "SELFHEAL_FAKE_MCP"

// TestCommandsFakeServer is not a test: it is the fake server, when the
// Server tests start the test binary as their child.
func TestCommandsFakeServer(t *testing.T) {
	if os.Getenv(fakeEnv) != "1" {
		t.Skip("the fake MCP server of the Server tests, run as their child")
	}
	fakeServer(os.Stdin, os.Stdout)
	os.Exit(0)
}

// fakeCmd returns the command of a fake server.
func fakeCmd() *exec.Cmd { return fakeCmdWith("")() }

// fakeCmdWith returns the start function of a fake server with options,
// a comma-separated list (see fakeOptsEnv).
func fakeCmdWith(opts string) func() *exec.Cmd {
	return func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCommandsFakeServer$")
		cmd.Env = append(os.Environ(), fakeEnv+"=1", fakeOptsEnv+"="+opts)
		cmd.Stderr = os.Stderr
		return cmd
	}
}

// fakeOptsEnv holds the fake server's options: "paged" lists its tools
// two a page, last first (echo on the last page), with cursors; "notools"
// declares no tools capability; "holdlist" answers no tools/list until the
// client sends the notification test/unhold or it gets SIGUSR2; "modern" answers
// server/discover as a server of revision 2026-07-28 (without it, with {}
// as any method it does not know: a server of the session era);
// "nodiscover" never answers server/discover (as a server that drops what
// it does not know); "mute" answers nothing at all.
const fakeOptsEnv = "SELFHEAL_FAKE_OPTS"

// fakeTools is the fake server's tools/list result.
const fakeTools = `{"tools":[
{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}},
{"name":"progress","inputSchema":{"type":"object"}},
{"name":"notify","inputSchema":{"type":"object"}},
{"name":"ask","inputSchema":{"type":"object"}},
{"name":"wait","inputSchema":{"type":"object"}},
{"name":"crash","inputSchema":{"type":"object"}},
{"name":"hang","inputSchema":{"type":"object"}},
{"name":"stubborn","inputSchema":{"type":"object"}},
{"name":"flood","inputSchema":{"type":"object"}},
{"name":"steps","inputSchema":{"type":"object"}}]}`

type fakeMsg struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`
}

// fakeServer serves in and out until in ends (or forever, once told to
// be stubborn).
func fakeServer(in io.Reader, out io.Writer) {
	var mu sync.Mutex
	write := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		mu.Lock()
		defer mu.Unlock()
		out.Write(append(data, '\n'))
	}
	result := func(id json.RawMessage, res string) {
		write(fakeMsg{JSONRPC: "2.0", ID: id, Result: json.RawMessage(res)})
	}
	text := func(id json.RawMessage, s string) {
		data, _ := json.Marshal(s)
		result(id, `{"content":[{"type":"text","text":`+string(data)+`}]}`)
	}
	var (
		stateMu  sync.Mutex
		answers  = map[string]chan json.RawMessage{} // the server's requests awaiting the client's response
		released = make(chan struct{})
		stubborn bool
		// hung are the ids of the calls of hang, cancelled those of the
		// cancellations received.
		hung, cancelled []json.RawMessage
		lists           atomic.Int64 // the tools/list requests received
		unhold          = make(chan struct{})
		opts            = map[string]bool{}
	)
	for _, o := range strings.Split(os.Getenv(fakeOptsEnv), ",") {
		opts[o] = true
	}
	// flood waits for SIGUSR1, which must not kill the process if it
	// comes early.
	usr1 := make(chan os.Signal, 1)
	signal.Notify(usr1, syscall.SIGUSR1)
	// holdlist's listings are answered at test/unhold, or at SIGUSR2: a
	// signal reaches the server while a call holds the session's messages
	// behind it.
	var unholdOnce sync.Once
	usr2 := make(chan os.Signal, 1)
	signal.Notify(usr2, syscall.SIGUSR2)
	go func() { <-usr2; unholdOnce.Do(func() { close(unhold) }) }()
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		if opts["mute"] {
			continue
		}
		var m fakeMsg
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			// Nested past encoding/json's 10,000 levels: read with the
			// proxy's own scanner, a call is answered with how deep its
			// arguments go, so that a test sees what reached the server.
			if d, ok := wire.Decode(sc.Bytes()); ok && d.ID != nil && d.Method == "tools/call" {
				var name string
				var args []byte
				wire.Members(d.Params, func(k, v []byte) {
					switch string(k) {
					case "name":
						name = wire.Str(v)
					case "arguments":
						args = v
					}
				})
				text(json.RawMessage(bytes.Clone(d.ID)), fmt.Sprintf("%s: arguments nested %d deep", name, nesting(args)))
			}
			continue
		}
		if m.Method == "" { // the client's response to the server's request
			stateMu.Lock()
			ch := answers[string(m.ID)]
			stateMu.Unlock()
			if ch != nil {
				if m.Result == nil { // an error: the client refused
					m.Result = m.Error
				}
				ch <- m.Result
			}
			continue
		}
		switch m.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			json.Unmarshal(m.Params, &p)
			caps := `{"tools":{}}`
			if opts["notools"] {
				caps = `{"logging":{}}`
			}
			result(m.ID, `{"protocolVersion":"`+p.ProtocolVersion+`","capabilities":`+caps+`,"serverInfo":{"name":"fake","version":"`+strconv.Itoa(os.Getpid())+`"}}`)
		case "tools/list":
			lists.Add(1)
			var p struct {
				Cursor string `json:"cursor"`
			}
			json.Unmarshal(m.Params, &p)
			page := fakeTools
			if opts["paged"] {
				var all struct{ Tools []json.RawMessage }
				json.Unmarshal([]byte(fakeTools), &all)
				slices.Reverse(all.Tools)
				from, _ := strconv.Atoi(p.Cursor)
				to := min(from+2, len(all.Tools))
				next := ""
				if to < len(all.Tools) {
					next = `,"nextCursor":"` + strconv.Itoa(to) + `"`
				}
				page = `{"tools":` + mustJSONRaw(all.Tools[from:to]) + next + `}`
			}
			if opts["holdlist"] {
				go func(id json.RawMessage) { <-unhold; result(id, page) }(m.ID)
			} else {
				result(m.ID, page)
			}
		case "server/discover":
			switch {
			case opts["nodiscover"]:
			case opts["modern"]:
				result(m.ID, `{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}},"ttlMs":0,"cacheScope":"private","resultType":"complete"}`)
			default:
				result(m.ID, `{}`)
			}
		case "test/seen": // the request as the server got it
			line, _ := json.Marshal(sc.Text())
			result(m.ID, `{"line":`+string(line)+`}`)
		case "test/deaf": // reads nothing more, and answers nothing
			select {}
		case "test/pid":
			result(m.ID, `{"pid":`+strconv.Itoa(os.Getpid())+`}`)
		case "test/cancelled": // the ids of the hung calls, and of the cancellations
			stateMu.Lock()
			result(m.ID, `{"hung":`+mustJSONRaw(hung)+`,"cancelled":`+mustJSONRaw(cancelled)+`}`)
			stateMu.Unlock()
		case "notifications/cancelled":
			var p struct {
				RequestID json.RawMessage `json:"requestId"`
			}
			json.Unmarshal(m.Params, &p)
			stateMu.Lock()
			cancelled = append(cancelled, p.RequestID)
			stateMu.Unlock()
		case "test/lists":
			result(m.ID, `{"lists":`+strconv.FormatInt(lists.Load(), 10)+`}`)
		case "test/unhold":
			unholdOnce.Do(func() { close(unhold) })
		case "test/release": // a notification, or a request
			close(released)
			if m.ID != nil {
				result(m.ID, `{}`)
			}
		case "tools/call":
			var p struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
				Meta      struct {
					ProgressToken json.RawMessage `json:"progressToken"`
				} `json:"_meta"`
			}
			json.Unmarshal(m.Params, &p)
			switch p.Name {
			case "echo":
				text(m.ID, fmt.Sprint(p.Arguments["text"]))
			case "progress":
				for i := 1; i <= 3; i++ {
					write(fakeMsg{JSONRPC: "2.0", Method: "notifications/progress",
						Params: json.RawMessage(`{"progressToken":` + string(p.Meta.ProgressToken) + `,"progress":` + strconv.Itoa(i) + `,"total":3}`)})
				}
				text(m.ID, "done")
			case "notify":
				write(fakeMsg{JSONRPC: "2.0", Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"hello"}`)})
				text(m.ID, "notified")
			case "ask":
				ch := make(chan json.RawMessage, 1)
				stateMu.Lock()
				answers[`"ask-1"`] = ch
				stateMu.Unlock()
				write(fakeMsg{JSONRPC: "2.0", ID: json.RawMessage(`"ask-1"`), Method: "roots/list", Params: json.RawMessage(`{}`)})
				go func(id json.RawMessage) { text(id, string(<-ch)) }(m.ID)
			case "wait": // with a text, answered with it
				answer := "released"
				if t, ok := p.Arguments["text"].(string); ok {
					answer = t
				}
				go func(id json.RawMessage) { <-released; text(id, answer) }(m.ID)
			case "steps": // progress, then more once released, then the result
				progress := func(i int) {
					write(fakeMsg{JSONRPC: "2.0", Method: "notifications/progress",
						Params: json.RawMessage(`{"progressToken":` + string(p.Meta.ProgressToken) + `,"progress":` + strconv.Itoa(i) + `,"total":2}`)})
				}
				progress(1)
				go func(id json.RawMessage) { <-released; progress(2); text(id, "stepped") }(m.ID)
			case "flood": // reading nothing meanwhile
				<-usr1
				for range 2000 {
					write(fakeMsg{JSONRPC: "2.0", Method: "notifications/message", Params: json.RawMessage(`{"level":"info","data":"flood"}`)})
				}
				text(m.ID, "flooded")
			case "crash":
				os.Exit(3)
			case "hang":
				stateMu.Lock()
				hung = append(hung, m.ID)
				stateMu.Unlock()
			case "stubborn":
				stateMu.Lock()
				stubborn = true
				stateMu.Unlock()
				text(m.ID, "stubborn")
			}
		default:
			if m.ID != nil {
				result(m.ID, `{}`)
			}
		}
	}
	stateMu.Lock()
	s := stubborn
	stateMu.Unlock()
	if s {
		select {} // until killed
	}
}

func mustJSONRaw(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

package wiretest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"reflect"
	"strings"
	"testing"
)

// The revisions a Client speaks.
const (
	// Rev2025 is the last revision with the initialize handshake: the
	// Client initializes once, then sends plain requests.
	Rev2025 = "2025-11-25"
	// Rev2026 is the stateless revision: no handshake, and every request
	// carries the protocol version, client info and capabilities in its
	// _meta (over HTTP also in the MCP-Protocol-Version, Mcp-Method and
	// Mcp-Name headers).
	Rev2026 = "2026-07-28"
)

// Client sends requests of one revision to one server and returns the raw
// results. Its methods fail the test on a transport error.
type Client struct {
	rev    string
	nextID int
	// roundTrip sends one request (or notification, when id is 0) and
	// returns the response message, or nil for a notification.
	roundTrip func(t testing.TB, id int, method, name string, body []byte) []byte
}

// Response is one JSON-RPC response as written: its result or its error,
// raw.
type Response struct {
	Result json.RawMessage
	Error  json.RawMessage
}

// CallTool sends tools/call for the tool name with the raw arguments (nil:
// none) and returns the response.
func (c *Client) CallTool(t testing.TB, name string, args json.RawMessage) Response {
	t.Helper()
	params := map[string]any{"name": name}
	if args != nil {
		params["arguments"] = args
	}
	return c.Call(t, "tools/call", name, params)
}

// Call sends the request method with params (a JSON object, without _meta;
// the Client adds what its revision needs) and returns the response. name
// is the value of the Mcp-Name header over HTTP in 2026-07-28 (the tool's,
// prompt's or resource's name; "" for none).
func (c *Client) Call(t testing.TB, method, name string, params map[string]any) Response {
	t.Helper()
	c.nextID++
	id := c.nextID
	msg := c.roundTrip(t, id, method, name, c.request(t, id, method, params))
	var r struct {
		ID     json.RawMessage `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(msg, &r); err != nil {
		t.Fatalf("%s: the response is not JSON-RPC: %v\n%s", method, err, msg)
	}
	if string(r.ID) != fmt.Sprint(id) {
		t.Fatalf("%s: response id %s, want %d", method, r.ID, id)
	}
	return Response{Result: r.Result, Error: r.Error}
}

// request is the JSON-RPC request id (a notification when id is 0).
func (c *Client) request(t testing.TB, id int, method string, params map[string]any) []byte {
	t.Helper()
	if c.rev == Rev2026 {
		p := make(map[string]any, len(params)+1)
		for k, v := range params {
			p[k] = v
		}
		p["_meta"] = map[string]any{
			"io.modelcontextprotocol/protocolVersion":    Rev2026,
			"io.modelcontextprotocol/clientInfo":         map[string]string{"name": "wiretest", "version": "1"},
			"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		}
		params = p
	}
	m := map[string]any{"jsonrpc": "2.0", "method": method}
	if id != 0 {
		m["id"] = id
	}
	if params != nil {
		m["params"] = params
	}
	data, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// initialize runs the 2025-11-25 handshake.
func (c *Client) initialize(t testing.TB) {
	t.Helper()
	res := c.Call(t, "initialize", "", map[string]any{
		"protocolVersion": Rev2025,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "wiretest", "version": "1"},
	})
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	if err := json.Unmarshal(res.Result, &init); err != nil || init.ProtocolVersion != Rev2025 {
		t.Fatalf("initialize: %s %s; want protocolVersion %s", res.Result, res.Error, Rev2025)
	}
	c.roundTrip(t, 0, "notifications/initialized", "", c.request(t, 0, "notifications/initialized", nil))
}

// Stdio returns a Client of revision rev for a server that serve runs on
// the given pipe ends until its reader ends; the test's cleanup closes it
// and waits for serve to return.
func Stdio(t testing.TB, rev string, serve func(r io.ReadCloser, w io.WriteCloser)) *Client {
	t.Helper()
	toServer, fromClient := io.Pipe()
	fromServer, toClient := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		serve(toServer, toClient)
	}()
	t.Cleanup(func() {
		fromClient.Close()
		fromServer.Close()
		<-done
	})
	lines := bufio.NewReader(fromServer)
	c := &Client{rev: rev}
	c.roundTrip = func(t testing.TB, id int, method, _ string, body []byte) []byte {
		t.Helper()
		if _, err := fromClient.Write(append(body, '\n')); err != nil {
			t.Fatalf("%s: writing: %v", method, err)
		}
		if id == 0 {
			return nil
		}
		for {
			line, err := lines.ReadBytes('\n')
			if err != nil {
				t.Fatalf("%s: reading: %v", method, err)
			}
			if hasID(line, id) {
				return bytes.TrimRight(line, "\r\n")
			}
			// A notification or another message: not the answer.
		}
	}
	if rev == Rev2025 {
		c.initialize(t)
	}
	return c
}

// HTTP returns a Client of revision rev for the Streamable HTTP endpoint
// url: in 2025-11-25 it opens a session with initialize and sends its id
// with each request; in 2026-07-28 every request stands alone.
func HTTP(t testing.TB, rev, url string) *Client {
	t.Helper()
	c := &Client{rev: rev}
	var session string
	c.roundTrip = func(t testing.TB, id int, method, name string, body []byte) []byte {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		switch {
		case rev == Rev2026:
			req.Header.Set("MCP-Protocol-Version", rev)
			req.Header.Set("Mcp-Method", method)
			if name != "" {
				req.Header.Set("Mcp-Name", name)
			}
		case method != "initialize":
			req.Header.Set("MCP-Protocol-Version", rev)
			if session != "" { // a stateless server gives none
				req.Header.Set("Mcp-Session-Id", session)
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		defer resp.Body.Close()
		data, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("%s: reading: %v", method, err)
		}
		if id == 0 {
			if resp.StatusCode != http.StatusAccepted {
				t.Fatalf("%s: %s, want 202\n%s", method, resp.Status, data)
			}
			return nil
		}
		if method == "initialize" {
			session = resp.Header.Get("Mcp-Session-Id")
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s\n%s", method, resp.Status, data)
		}
		mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
		if mt == "application/json" {
			return bytes.TrimSpace(data)
		}
		if mt != "text/event-stream" {
			t.Fatalf("%s: Content-Type %q", method, resp.Header.Get("Content-Type"))
		}
		for _, ev := range strings.Split(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n\n") {
			var payload []string
			for _, l := range strings.Split(ev, "\n") {
				if d, ok := strings.CutPrefix(l, "data:"); ok {
					payload = append(payload, strings.TrimPrefix(d, " "))
				}
			}
			if msg := []byte(strings.Join(payload, "\n")); hasID(msg, id) {
				return msg
			}
		}
		t.Fatalf("%s: no response with id %d in the stream:\n%s", method, id, data)
		return nil
	}
	if rev == Rev2025 {
		c.initialize(t)
	}
	return c
}

// hasID reports whether msg is a response with the given id.
func hasID(msg []byte, id int) bool {
	var r struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(msg, &r) == nil && r.Method == "" && string(r.ID) == fmt.Sprint(id)
}

// ResultType returns the result's resultType member, "" when it has none;
// a result that is not a JSON object fails the test.
func ResultType(t testing.TB, result json.RawMessage) string {
	t.Helper()
	var r map[string]json.RawMessage
	if err := json.Unmarshal(result, &r); err != nil {
		t.Fatalf("the result is not an object: %v\n%s", err, result)
	}
	var rt string
	if raw, ok := r["resultType"]; ok {
		if err := json.Unmarshal(raw, &rt); err != nil {
			t.Fatalf("resultType is not a string: %s", raw)
		}
		if rt == "" {
			t.Fatalf(`resultType is ""`)
		}
	}
	return rt
}

// CheckMarks fails the test unless the result in the file new (of
// 2026-07-28) is the one in the file old (of 2025-11-25) with what that
// revision adds to every result: resultType "complete" and the server's
// identity in _meta (an _meta holding only that when old has none).
func CheckMarks(t testing.TB, old, new string) {
	t.Helper()
	read := func(path string) map[string]any {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		return m
	}
	o, n := read(old), read(new)
	if n["resultType"] != "complete" {
		t.Errorf("%s: resultType %v, want complete", new, n["resultType"])
	}
	delete(n, "resultType")
	meta, _ := n["_meta"].(map[string]any)
	if _, ok := meta["io.modelcontextprotocol/serverInfo"]; !ok {
		t.Errorf("%s: no serverInfo in _meta", new)
	}
	delete(meta, "io.modelcontextprotocol/serverInfo")
	if _, ok := o["_meta"]; !ok && len(meta) == 0 {
		delete(n, "_meta")
	}
	if !reflect.DeepEqual(o, n) {
		t.Errorf("%s differs from %s in more than resultType and serverInfo", new, old)
	}
}

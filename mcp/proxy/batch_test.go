package proxy_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPBatch: each tools/call of a JSON-RPC batch (MCP 2025-03-26,
// which go-sdk's server still serves) is checked as a lone call is: a near
// miss never reaches the server and its answer joins the server's
// responses, a valid call runs, a call the server rejects is explained,
// in a JSON response and in a stream (go-sdk's real server). A batch
// answered whole never reaches the server; one whose other members are
// notifications gets the answers instead of the server's 202.
func TestHTTPBatch(t *testing.T) {
	for _, jsonResponse := range []bool{true, false} {
		name := map[bool]string{true: "json", false: "stream"}[jsonResponse]
		t.Run(name, func(t *testing.T) {
			u := newUpstream(t, &mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
			endpoint := front(t, u).URL + "/mcp"
			session := initialize2025(t, endpoint)

			got := postBatch(t, endpoint, session, `[`+
				`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","contnt":"x"}}},`+
				`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/b","content":"y"}}},`+
				`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/c","content":5}}}]`)
			want := map[string]string{"2": "answered", "3": "ran", "4": "explained"}
			if !equalMaps(got, want) {
				t.Errorf("responses %v, want %v", got, want)
			}
			if n := u.calls.Load(); n != 1 {
				t.Errorf("the server ran %d calls, want 1", n)
			}

			// Answered whole: nothing reaches the server.
			got = postBatch(t, endpoint, session, `[{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","contnt":"x"}}}]`)
			if want := map[string]string{"5": "answered"}; !equalMaps(got, want) {
				t.Errorf("responses %v, want %v", got, want)
			}
			// With a notification: the server answers 202, the client
			// gets the answer.
			got = postBatch(t, endpoint, session, `[{"jsonrpc":"2.0","method":"notifications/roots/list_changed"},`+
				`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","contnt":"x"}}}]`)
			if want := map[string]string{"6": "answered"}; !equalMaps(got, want) {
				t.Errorf("responses %v, want %v", got, want)
			}
			if n := u.calls.Load(); n != 1 {
				t.Errorf("the server ran %d calls, want 1", n)
			}
		})
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// initialize2025 opens a session at the 2025-03-26 revision, the last
// with batches, and returns its id.
func initialize2025(t *testing.T, endpoint string) string {
	t.Helper()
	resp := rawPost(t, endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || session == "" {
		t.Fatalf("initialize: %s, session %q", resp.Status, session)
	}
	resp = rawPost(t, endpoint, session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	return session
}

func rawPost(t *testing.T, endpoint, session, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("MCP-Protocol-Version", "2025-03-26")
	}
	resp, err := (&http.Client{Timeout: wait}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// postBatch posts a batch and returns what answered each id: "answered"
// (the proxy, before forwarding), "explained" (the proxy, in place of the
// server's rejection), "the server's rejection", or "ran".
func postBatch(t *testing.T, endpoint, session, body string) map[string]string {
	t.Helper()
	resp := rawPost(t, endpoint, session, body)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: %s", resp.Status, data)
	}
	var msgs []json.RawMessage
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for line := range strings.Lines(string(data)) {
			if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
				var batch []json.RawMessage
				if json.Unmarshal([]byte(d), &batch) == nil {
					msgs = append(msgs, batch...)
				} else {
					msgs = append(msgs, json.RawMessage(d))
				}
			}
		}
	} else if err := json.Unmarshal(data, &msgs); err != nil {
		t.Fatalf("not an array: %s", data)
	}
	got := map[string]string{}
	for _, raw := range msgs {
		var m struct {
			ID     json.RawMessage
			Error  *struct{ Message string }
			Result struct {
				IsError bool
				Content []struct{ Text string }
			}
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%v: %s", err, raw)
		}
		text := ""
		if len(m.Result.Content) > 0 {
			text = m.Result.Content[0].Text
		}
		var what string
		switch {
		case strings.Contains(text, "<validation_error") && strings.Contains(text, "<server_message>"):
			what = "explained"
		case strings.Contains(text, "<validation_error"):
			what = "answered"
		case m.Error != nil || m.Result.IsError:
			what = "the server's rejection"
		case strings.HasPrefix(text, "wrote "):
			what = "ran"
		default:
			what = "unknown: " + string(raw)
		}
		if _, dup := got[string(m.ID)]; dup {
			t.Errorf("id %s answered twice", m.ID)
		}
		got[string(m.ID)] = what
	}
	return got
}

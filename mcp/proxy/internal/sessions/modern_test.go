package sessions

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

func TestSetMember(t *testing.T) {
	for _, tc := range []struct{ obj, name, value, want string }{
		{`{"a":1,"id":7,"b":2}`, "id", `"x"`, `{"a":1,"id":"x","b":2}`},
		{`{ "id" : 7 , "b":[1,{"id":3}]}`, "id", `"x"`, `{ "id" : "x" , "b":[1,{"id":3}]}`},
		{`{"a":1}`, "id", `2`, `{"a":1,"id":2}`},
		{`{}`, "id", `2`, `{"id":2}`},
		{`{ }`, "id", `2`, `{ "id":2}`},
		{`{"id":1,"id":2}`, "id", `3`, `{"id":3,"id":3}`},
		{`{"\u0069d":1}`, "id", `3`, `{"\u0069d":3}`},
		{`{"a":"}\"id"}`, "id", `3`, `{"a":"}\"id","id":3}`},
		{`[1]`, "id", `3`, `[1]`},
		{`{"a":}`, "id", `3`, `{"a":}`},
		{``, "id", `3`, ``},
	} {
		if got := string(setMember([]byte(tc.obj), tc.name, []byte(tc.value))); got != tc.want {
			t.Errorf("setMember(%s, %s, %s) = %s, want %s", tc.obj, tc.name, tc.value, got, tc.want)
		}
	}
}

func TestDeleteMembers(t *testing.T) {
	for _, tc := range []struct {
		obj   string
		names []string
		want  string
	}{
		{`{"a":1,"b":2,"c":3}`, []string{"b"}, `{"a":1,"c":3}`},
		{`{"a":1,"b":2,"c":3}`, []string{"a", "c"}, `{"b":2}`},
		{`{"a":1}`, []string{"a"}, `{}`},
		{`{ "a" : 1 }`, []string{"b"}, `{ "a" : 1 }`},
		{`{"a": {"b":1}, "b" :2}`, []string{"b"}, `{"a": {"b":1}}`},
		{`"a"`, []string{"a"}, `"a"`},
	} {
		if got := string(deleteMembers([]byte(tc.obj), tc.names...)); got != tc.want {
			t.Errorf("deleteMembers(%s, %q) = %s, want %s", tc.obj, tc.names, got, tc.want)
		}
	}
}

func TestMember(t *testing.T) {
	for _, tc := range []struct{ obj, name, want string }{
		{`{"a":1,"b":{"c":[2]}}`, "b", `{"c":[2]}`},
		{`{"a":1,"a":"two"}`, "a", `"two"`},
		{`{"a":1}`, "b", ``},
		{`{"a":1`, "a", ``},
		{`null`, "a", ``},
	} {
		if got := string(member([]byte(tc.obj), tc.name)); got != tc.want {
			t.Errorf("member(%s, %s) = %s, want %s", tc.obj, tc.name, got, tc.want)
		}
	}
}

// meta2026 is a request's _meta of revision 2026-07-28.
const meta2026 = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"raw","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`

// The era of a POST and the refusals of the revision's rules, as the
// TypeScript SDK's classifier decides them.
func TestClassify(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{},` + meta2026 + `}}`
	std := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}
	with := func(extra map[string]string) map[string]string {
		h := map[string]string{}
		for k, v := range std {
			h[k] = v
		}
		for k, v := range extra {
			if v == "" {
				delete(h, k)
			} else {
				h[k] = v
			}
		}
		return h
	}
	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    string
		// want: "legacy", "stateless VERSION", or "STATUS CODE MESSAGE"
		want string
	}{
		{"a call of the session era", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`, "legacy"},
		{"a 2025 header", map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "legacy"},
		{"a 2025 claim", nil, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}}`, "legacy"},
		{"initialize", nil, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28"}}`, "legacy"},
		{"a response", std, `{"jsonrpc":"2.0","id":1,"result":{}}`, "legacy"},
		{"a batch", std, `[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, "legacy"},
		{"a stateless call", std, call, "stateless 2026-07-28"},
		{"a later revision", map[string]string{"Mcp-Protocol-Version": "2027-01-01", "Mcp-Method": "ping"},
			`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}}}`, "stateless 2027-01-01"},
		{"no headers: read from the body", nil, call, "stateless 2026-07-28"},
		{"a stateless notification", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "notifications/cancelled"},
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "stateless 2026-07-28"},
		{"a notification of the session era", nil, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`, "legacy"},
		{"a stateless element in a batch", nil, `[` + call + `]`,
			"400 -32600 Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later"},
		{"header and claim disagree", with(map[string]string{"Mcp-Protocol-Version": "2025-11-25"}), call,
			"400 -32020 Bad Request: the request headers and body disagree: the body envelope names protocol version 2026-07-28 but the MCP-Protocol-Version header names 2025-11-25"},
		{"a 2025 claim under a 2026 header", std, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}}}}`,
			"400 -32020 Bad Request: the request headers and body disagree: the body envelope names protocol version 2025-11-25 but the MCP-Protocol-Version header names 2026-07-28"},
		{"Mcp-Method disagrees", with(map[string]string{"Mcp-Method": "tools/list"}), call,
			"400 -32020 Bad Request: the request headers and body disagree: the body names method tools/call but the Mcp-Method header names tools/list"},
		{"a 2026 header without an envelope", std, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo"}}`,
			"400 -32602 Invalid params: the MCP-Protocol-Version header names protocol revision 2026-07-28, but the request is missing the required per-request envelope key(s): _meta"},
		{"an envelope without its claim", std, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"progressToken":1}}}`,
			"400 -32602 Invalid params: the MCP-Protocol-Version header names protocol revision 2026-07-28, but the request is missing the required per-request envelope key(s): io.modelcontextprotocol/protocolVersion, io.modelcontextprotocol/clientCapabilities"},
		{"no client capabilities", std, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`,
			"400 -32602 Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/clientCapabilities: missing"},
		{"a claim that is no string", std, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","_meta":{"io.modelcontextprotocol/protocolVersion":20260728,"io.modelcontextprotocol/clientCapabilities":{}}}}`,
			"400 -32602 Invalid _meta envelope for protocol revision 2026-07-28: io.modelcontextprotocol/protocolVersion: expected a string"},
		{"initialize under a 2026 header", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`,
			"400 -32020 Bad Request: the request headers and body disagree: an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header"},
		{"a notification whose Mcp-Method disagrees", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "ping"},
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
			"400 -32020 Bad Request: the request headers and body disagree: the notification body names method notifications/cancelled but the Mcp-Method header names ping"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, batch, bad := parsePosted([]byte(tc.body), defaultMaxBatch)
			if bad != nil {
				t.Fatalf("parsePosted: %+v", bad)
			}
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			st, refused := classify(h, msgs, batch)
			var got string
			switch {
			case refused != nil:
				got = strings.Join([]string{strconv.Itoa(refused.status), strconv.Itoa(refused.code), refused.msg}, " ")
			case st != nil:
				got = "stateless " + st.version
			default:
				got = "legacy"
			}
			if got != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

// The headers a stateless request needs (SEP-2243), as the TypeScript
// SDK checks them: the refusal's body, whole.
func TestStandardHeaders(t *testing.T) {
	const call = `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"ec ho",` + meta2026 + `}}`
	for _, tc := range []struct {
		name    string
		headers map[string]string
		body    string
		want    string // "" for none
	}{
		{"all there", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "ec ho"}, call, ""},
		{"Base64", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?ZWMgaG8=?="}, call, ""},
		{"a method without a name", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list"},
			`{"jsonrpc":"2.0","id":"c","method":"tools/list","params":{` + meta2026 + `}}`, ""},
		{"no version header", map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "ec ho"}, call,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the body envelope names protocol version 2026-07-28 but the required MCP-Protocol-Version header is absent","data":{"mismatch":{"body":"the body envelope names protocol version 2026-07-28 but the required MCP-Protocol-Version header is absent","header":"(missing)"}}}}`},
		{"no method header", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Name": "ec ho"}, call,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the body names method tools/call but the required Mcp-Method header is absent","data":{"mismatch":{"body":"the body names method tools/call but the required Mcp-Method header is absent","header":"(missing)"}}}}`},
		{"no name header", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call"}, call,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the body carries params.name=\"ec ho\" but the required Mcp-Name header is absent","data":{"mismatch":{"body":"the body carries params.name=\"ec ho\" but the required Mcp-Name header is absent","header":"(missing)"}}}}`},
		{"another name", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "deploy"}, call,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the body carries params.name=\"ec ho\" but the Mcp-Name header names \"deploy\"","data":{"mismatch":{"body":"the body carries params.name=\"ec ho\" but the Mcp-Name header names \"deploy\"","header":"deploy"}}}}`},
		{"bad Base64", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?!!?="}, call,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the Mcp-Name header carries an invalid Base64 sentinel value","data":{"mismatch":{"body":"the Mcp-Name header carries an invalid Base64 sentinel value","header":"=?base64?!!?="}}}}`},
		{"Base64 without its padding", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?ZWMgaG8?="}, call,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the Mcp-Name header carries an invalid Base64 sentinel value","data":{"mismatch":{"body":"the Mcp-Name header carries an invalid Base64 sentinel value","header":"=?base64?ZWMgaG8?="}}}}`},
		// Node reads a header's bytes as Latin-1: a name that is not
		// ASCII must come in Base64.
		{"a name not ASCII, as it is", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "é"},
			`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"é",` + meta2026 + `}}`,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the body carries params.name=\"é\" but the Mcp-Name header names \"Ã©\"","data":{"mismatch":{"body":"the body carries params.name=\"é\" but the Mcp-Name header names \"Ã©\"","header":"Ã©"}}}}`},
		{"a name not ASCII, in Base64", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?w6k=?="},
			`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"é",` + meta2026 + `}}`, ""},
		{"resources/read names its uri", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "file:///a"},
			`{"jsonrpc":"2.0","id":"c","method":"resources/read","params":{"uri":"file:///b",` + meta2026 + `}}`,
			`{"jsonrpc":"2.0","id":"c","error":{"code":-32020,"message":"Bad Request: the request headers and body disagree: the body carries params.uri=\"file:///b\" but the Mcp-Name header names \"file:///a\"","data":{"mismatch":{"body":"the body carries params.uri=\"file:///b\" but the Mcp-Name header names \"file:///a\"","header":"file:///a"}}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs, _, bad := parsePosted([]byte(tc.body), defaultMaxBatch)
			if bad != nil {
				t.Fatalf("parsePosted: %+v", bad)
			}
			h := http.Header{}
			for k, v := range tc.headers {
				h.Set(k, v)
			}
			refused := standardHeaders(h, &stateless{msg: msgs[0], version: "2026-07-28"})
			if tc.want == "" {
				if refused != nil {
					t.Fatalf("refused: %+v", refused)
				}
				return
			}
			if refused == nil {
				t.Fatal("not refused")
			}
			rec := httptest.NewRecorder()
			refused.write(rec)
			if rec.Code != http.StatusBadRequest || rec.Body.String() != tc.want {
				t.Fatalf("got  %d %s\nwant 400 %s", rec.Code, rec.Body, tc.want)
			}
		})
	}
}

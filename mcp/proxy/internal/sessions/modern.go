package sessions

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// Revision 2026-07-28 of MCP is stateless: each request names its revision,
// client and capabilities in params._meta, and over HTTP the headers repeat
// the revision, the method and the name it acts on.
const (
	// The other revisions and _meta keys are wire's (wire.Stateless …).
	metaLogLevel       = "io.modelcontextprotocol/logLevel"
	metaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

	headerProtocolVersion = "Mcp-Protocol-Version"
	headerMethod          = "Mcp-Method"
	headerName            = "Mcp-Name"

	// codeHeaderMismatch: headers disagree with the body (SEP-2243).
	codeHeaderMismatch = -32020
	// codeUnsupportedVersion: a revision not served (SEP-2575).
	codeUnsupportedVersion = -32022
	// codeInvalidParams: the _meta envelope is not the revision's.
	codeInvalidParams = -32602
	// codeMethodNotFound: what a bridged server cannot serve.
	codeMethodNotFound = -32601
	// codeTimeout: the server stayed silent too long (the SDKs' timeout).
	codeTimeout = -32001

	methodDiscover  = "server/discover"
	methodListen    = "subscriptions/listen"
	methodCancelled = "notifications/cancelled"
	methodPing      = "ping"
)

// refusal is the answer to a request refused before any server sees it.
type refusal struct {
	status int
	id     []byte
	code   int
	msg    string
	data   any // nil for none
}

// write answers with the refusal as JSON whatever the Accept header says,
// as the TypeScript SDK's createMcpHandler does.
func (f *refusal) write(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json")
	if f.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	w.WriteHeader(f.status)
	_, _ = w.Write(errorWithData(f.id, f.code, f.msg, f.data))
}

// errorWithData is wire.ErrorResponse with data (nil for none).
func errorWithData(id []byte, code int, msg string, data any) []byte {
	line := wire.ErrorResponse(id, code, msg)
	raw, err := json.Marshal(data)
	if data == nil || err != nil { // the data are the proxy's own values: err not reached
		return line
	}
	return setMember(line, "error", setMember(member(line, "error"), "data", raw))
}

// mismatch is the refusal of headers that disagree with the body, in the
// TypeScript SDK's words.
func mismatch(id []byte, header, body string) *refusal {
	return &refusal{
		status: http.StatusBadRequest, id: id, code: codeHeaderMismatch,
		msg:  "Bad Request: the request headers and body disagree: " + body,
		data: map[string]any{"mismatch": map[string]string{"header": header, "body": body}},
	}
}

// stateless is a POST of revision 2026-07-28: its one message and revision.
type stateless struct {
	msg     posted
	version string
}

// classify tells a POST of the stateless era (its _meta claim or its
// MCP-Protocol-Version header names 2026-07-28 or later) from one of the
// session era (nil, nil), and refuses what the revision does not allow, as
// the TypeScript SDK's classifier does: claim and header must agree,
// Mcp-Method must name the body's method, the envelope must be complete. A
// batch carries no stateless request.
func classify(h http.Header, msgs []posted, batch bool) (*stateless, *refusal) {
	hv := strings.Trim(h.Get(headerProtocolVersion), " \t")
	if batch {
		for _, m := range msgs {
			if v, claimed := claim(m); claimed && wire.IsStateless(v) {
				return nil, &refusal{status: http.StatusBadRequest, code: -32600,
					msg: "Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later"}
			}
		}
		return nil, nil
	}
	m := msgs[0]
	if m.method == "" { // a response to a request of the server
		return nil, nil
	}
	v, claimed := claim(m)
	mh, hasMethod := headerValue(h, headerMethod)
	if m.key == "" { // a notification: no envelope is required of it
		if !wire.IsStateless(v) && !wire.IsStateless(hv) {
			return nil, nil
		}
		if claimed && hv != "" && hv != v {
			return nil, mismatch(nil, hv, "the notification envelope names protocol version "+v+" but the MCP-Protocol-Version header names "+hv)
		}
		if hasMethod && mh != m.method {
			return nil, mismatch(nil, mh, "the notification body names method "+m.method+" but the Mcp-Method header names "+mh)
		}
		if !claimed {
			v = hv
		}
		return &stateless{msg: m, version: v}, nil
	}
	if m.method == methodInitialize && !(claimed && wire.IsStateless(v)) {
		if wire.IsStateless(hv) {
			return nil, mismatch(m.id, hv, "an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header")
		}
		return nil, nil
	}
	if claimed && (wire.IsStateless(v) || wire.IsStateless(hv)) {
		if bad := envelope(m); bad != nil {
			return nil, bad
		}
		if hv != "" && hv != v {
			return nil, mismatch(m.id, hv, "the body envelope names protocol version "+v+" but the MCP-Protocol-Version header names "+hv)
		}
		if hasMethod && mh != m.method {
			return nil, mismatch(m.id, mh, "the body names method "+m.method+" but the Mcp-Method header names "+mh)
		}
		return &stateless{msg: m, version: v}, nil
	}
	if wire.IsStateless(hv) {
		missing := []string{"_meta"}
		if meta := member(member(m.line, "params"), "_meta"); meta != nil {
			missing = missing[:0]
			for _, k := range []string{wire.MetaProtocolVersion, wire.MetaClientCapabilities} {
				if !hasMember(meta, k) {
					missing = append(missing, k)
				}
			}
		}
		return nil, &refusal{status: http.StatusBadRequest, id: m.id, code: codeInvalidParams,
			msg:  "Invalid params: the MCP-Protocol-Version header names protocol revision " + hv + ", but the request is missing the required per-request envelope key(s): " + strings.Join(missing, ", "),
			data: map[string]any{"envelope": map[string]any{"missing": missing}}}
	}
	return nil, nil
}

// claim returns the revision a message's params._meta names, and whether it
// names one (a value not a string names "").
func claim(m posted) (version string, claimed bool) {
	raw := member(member(member(m.line, "params"), "_meta"), wire.MetaProtocolVersion)
	return wire.Str(raw), raw != nil
}

// envelope refuses a stateless request whose _meta lacks its revision as a
// string or the client's capabilities as an object.
func envelope(m posted) *refusal {
	meta := member(member(m.line, "params"), "_meta")
	bad := func(key, problem string) *refusal {
		return &refusal{status: http.StatusBadRequest, id: m.id, code: codeInvalidParams,
			msg:  "Invalid _meta envelope for protocol revision 2026-07-28: " + key + ": " + problem,
			data: map[string]any{"envelope": map[string]string{"key": key, "problem": problem}}}
	}
	caps := member(meta, wire.MetaClientCapabilities)
	switch {
	case !wire.IsString(member(meta, wire.MetaProtocolVersion)):
		return bad(wire.MetaProtocolVersion, "expected a string")
	case caps == nil:
		return bad(wire.MetaClientCapabilities, "missing")
	case !isObject(caps):
		return bad(wire.MetaClientCapabilities, "expected an object")
	}
	return nil
}

// nameSources are the methods whose Mcp-Name repeats a member of params.
var nameSources = map[string]string{
	"tools/call":     "name",
	"prompts/get":    "name",
	"resources/read": "uri",
	"tasks/get":      "taskId",
	"tasks/update":   "taskId",
	"tasks/cancel":   "taskId",
}

// standardHeaders refuses a stateless request without the headers the
// revision requires (SEP-2243): MCP-Protocol-Version, Mcp-Method, and for
// a method naming what it acts on, Mcp-Name equal to the body's.
func standardHeaders(h http.Header, s *stateless) *refusal {
	m := s.msg
	if m.key == "" {
		return nil
	}
	if _, ok := headerValue(h, headerProtocolVersion); !ok {
		return mismatch(m.id, "(missing)", "the body envelope names protocol version "+s.version+" but the required MCP-Protocol-Version header is absent")
	}
	if _, ok := headerValue(h, headerMethod); !ok {
		return mismatch(m.id, "(missing)", "the body names method "+m.method+" but the required Mcp-Method header is absent")
	}
	field, ok := nameSources[m.method]
	if !ok {
		return nil
	}
	raw := member(member(m.line, "params"), field)
	body, isString := wire.Str(raw), wire.IsString(raw)
	nh, ok := headerValue(h, headerName)
	if !ok {
		if !isString {
			return nil
		}
		return mismatch(m.id, "(missing)", "the body carries params."+field+"=\""+body+"\" but the required Mcp-Name header is absent")
	}
	decoded, ok := decodeParamValue(nh)
	if !ok {
		return mismatch(m.id, latin1(nh), "the Mcp-Name header carries an invalid Base64 sentinel value")
	}
	if isString && decoded != body {
		return mismatch(m.id, latin1(nh), "the body carries params."+field+"=\""+body+"\" but the Mcp-Name header names \""+decoded+"\"")
	}
	return nil
}

// headerValue returns a header's trimmed value and whether it is there.
func headerValue(h http.Header, name string) (string, bool) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return "", false
	}
	return strings.Trim(vs[0], " \t"), true
}

// modernHeader reports whether MCP-Protocol-Version names a stateless
// revision: its GET or DELETE has no session to act on.
func modernHeader(r *http.Request) bool {
	v, _ := headerValue(r.Header, headerProtocolVersion)
	return wire.IsStateless(v)
}

// noSessionMethod answers 405 (POST allowed), as the SDKs without sessions.
func noSessionMethod(w http.ResponseWriter, r *http.Request) {
	(&refusal{status: http.StatusMethodNotAllowed, code: -32000,
		msg: "Method Not Allowed: " + r.Method + " is not part of protocol revision 2026-07-28, which has no sessions; server-to-client messages use subscriptions/listen"}).write(w)
}

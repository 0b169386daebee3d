package wire

import (
	"bytes"
	"encoding/json"
	"runtime/debug"
	"sync"
)

// MCP's revisions: dates, so that they compare in order as strings.
const (
	// Stateless is the first revision without a session: every request
	// carries its revision, client and capabilities in _meta.
	Stateless = "2026-07-28"
	// Stateful is the last revision with an initialize handshake.
	Stateful = "2025-11-25"
)

// The _meta keys of a 2026-07-28 request and result.
const (
	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientInfo         = "io.modelcontextprotocol/clientInfo"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// IsStateless reports whether revision is 2026-07-28 or later.
func IsStateless(revision string) bool { return revision >= Stateless }

// MetaVersion returns the revision a request's _meta declares, or "".
func MetaVersion(meta []byte) string {
	if meta == nil {
		return ""
	}
	var v string
	Members(meta, func(k, val []byte) {
		if string(k) == MetaProtocolVersion && IsString(val) {
			v = Str(val)
		}
	})
	return v
}

// StatelessMeta reports whether a _meta declares a stateless revision,
// without allocating: it is on the path of every call.
func StatelessMeta(meta []byte) bool {
	if meta == nil {
		return false
	}
	stateless := false
	Members(meta, func(k, v []byte) {
		if string(k) != MetaProtocolVersion || !IsString(v) {
			return
		}
		if bytes.IndexByte(v, '\\') < 0 {
			stateless = string(v[1:len(v)-1]) >= Stateless
		} else {
			stateless = IsStateless(Str(v))
		}
	})
	return stateless
}

// OwnMeta is the _meta of the proxy's own request in a stateless revision:
// the revision, the proxy as client, and no capabilities (it answers no
// request of the server's).
func OwnMeta(revision string) []byte {
	rev, _ := json.Marshal(revision) // a string always encodes
	return []byte(`{"` + MetaProtocolVersion + `":` + string(rev) +
		`,"` + MetaClientInfo + `":` + string(ClientInfo()) +
		`,"` + MetaClientCapabilities + `":{}}`)
}

// ClientInfo is the proxy's client info: its name and this module's
// version ("(devel)" in a build of its own tree).
func ClientInfo() []byte {
	data, _ := json.Marshal(map[string]string{"name": "selfheal-proxy", "version": moduleVersion()}) // always encodes
	return data
}

var moduleVersion = sync.OnceValue(func() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if info.Main.Path == "github.com/selfheal/selfheal" {
		return info.Main.Version
	}
	for _, d := range info.Deps {
		if d.Path == "github.com/selfheal/selfheal" {
			return d.Version
		}
	}
	return "(devel)"
})

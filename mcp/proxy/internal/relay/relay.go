package relay

import (
	"context"
	"io"
	"log/slog"
	"net/http"

	"github.com/selfheal/selfheal/mcp/guard"
)

// Relay is what the session server uses of one proxy.
type Relay struct {
	// Serve relays one session as Proxy.Serve does, its calls admitted
	// by limiter (nil: the proxy's own guards) under keys with limitBy
	// (see LimitBy; "" for none).
	Serve func(ctx context.Context, client io.Reader, toClient io.Writer, server io.Reader, toServer io.Writer, limiter guard.Limiter, limitBy string) error
	// Forbidden answers a request whose Host or Origin the proxy does not
	// serve with 403, and reports whether it did.
	Forbidden func(w http.ResponseWriter, r *http.Request) bool
	// Logger is the proxy's logger (WithLogger).
	Logger *slog.Logger
	// Limiter admits the calls of every session: WithLimiter's, or one
	// for WithGuard's limits, shared by the sessions; nil for none.
	Limiter guard.Limiter
	// LimitBy is the key of the limits of r's calls: the hash of
	// WithLimitBy's value for r ("" for none); nil without WithLimitBy.
	LimitBy func(r *http.Request) string
}

// Of returns the Relay of a *proxy.Proxy (any other value panics). Set by
// package proxy.
var Of func(p any) *Relay

// Message is what the session server reads of a JSON-RPC 2.0 message.
type Message struct {
	Method    string // "" for a response
	HasMethod bool
	// Response: the message answers a request (a result or an error and no
	// method).
	Response           bool
	ID, Params, Result []byte // as written; nil when absent
}

// The reading and writing of JSON-RPC messages, as the stdio proxy does
// it. Set by package proxy.
var (
	// Decode reads one JSON-RPC 2.0 message (one line); false for a line
	// that is not one.
	Decode func(line []byte) (*Message, bool)
	// Members calls f with the key and the value (as written) of each
	// member of the JSON object data, and reports whether data is one
	// object.
	Members func(data []byte, f func(key, value []byte)) bool
	// Str returns the JSON string raw unquoted, or "" when it is not a
	// string.
	Str func(raw []byte) string
	// IDKey returns the key of a request's id: equal for ids a JSON-RPC
	// peer takes for the same; false when id is neither a string nor a
	// number.
	IDKey func(id []byte) (key string, ok bool)
	// ErrorResponse returns a JSON-RPC error response (id nil: null).
	ErrorResponse func(id []byte, code int, msg string) []byte
	// ValidJSON reports whether data is one JSON value, at any depth.
	ValidJSON func(data []byte) bool
	// SkipSpace returns the index of the first byte at or after i of
	// valid JSON data that is not white space; SkipValue, the index after
	// the value at i; SkipString, the index after the string at i.
	SkipSpace, SkipValue, SkipString func(data []byte, i int) int
	// Lines returns the reader of r's newline-delimited messages, of any
	// length: each call returns the next line, valid until the next call,
	// or io.EOF.
	Lines func(r io.Reader) func() ([]byte, error)
	// MediaType is the media type of a Content-Type, lower case, or "".
	MediaType func(ct string) string
)

const (
	// OwnPrefix begins the ids of the proxy's own requests, which no
	// client can collide with.
	OwnPrefix = "selfheal-proxy/"
	// MaxListPages bounds the pages of a listing of the tools the proxy
	// asks for itself.
	MaxListPages = 100
)

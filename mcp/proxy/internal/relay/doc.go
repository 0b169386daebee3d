// Package relay is what the session server (package
// mcp/proxy/internal/sessions) uses of a proxy.Proxy: the relay of one
// session with its judge of a call, and the options that concern HTTP.
// Package proxy builds a [Relay] and hands it to the session server when
// it builds one (proxy.Proxy.CommandHandler), so that the types are checked
// at compile time.
package relay

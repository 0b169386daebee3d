// Package relay is what the session server (package
// mcp/proxy/sessions) uses of a proxy.Proxy: the relay of one session with
// its judge of a call and the tools it learns from a listing, and the
// options that concern HTTP. package proxy embeds a [Source] in its Proxy,
// unexported, and [Of] reads it, so that package proxy exports nothing
// for its session server. Nothing but those two packages imports this one.
package relay

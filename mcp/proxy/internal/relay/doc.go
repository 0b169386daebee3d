// Package relay is what the session server (package
// mcp/proxy/sessions) shares with the stdio proxy of package proxy: the
// relay of one session with its judge of a call and the tools it learns
// from a listing, the options that concern HTTP, and the reading of
// JSON-RPC messages. It gives them without exported names in package
// proxy: package proxy fills in these variables when it is loaded (its
// init), and the session server, which imports package proxy, reads them.
// Nothing but those two packages imports this one.
package relay

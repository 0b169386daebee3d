// Package sessions serves a stdio MCP server over the Streamable HTTP
// transport of MCP, with the answers of package proxy to bad calls: the
// server of proxy.Proxy.CommandHandler, which hands it the proxy's relay
// (package relay). One job per type: the HTTP front ([Server]), the
// processes ([process]), a session's relay and routing ([session]), an
// event stream with its resumption ([stream]); the 2026-07-28 pool in
// pool.go, stateless.go, modern.go and params.go.
//
// The Server serves a stdio MCP server over the Streamable HTTP transport of
// MCP. For the session era (revision 2025-11-25 and earlier) it runs one
// process per session: each initialize request starts a process, whose
// session ends with it. A server that speaks only stdio can so be reached
// over HTTP and run behind a load balancer (with sticky sessions: a session
// lives in one replica). Each session is relayed as proxy.Proxy.Serve
// relays one over stdio, with its own learned tools, guards and answers to
// bad calls (see proxy.Proxy). Clients of revision 2026-07-28 are served
// without sessions (see below).
//
// The tools are listed by the relay, as over stdio: a call of a tool it
// has not learned waits for its own tools/list (every page, with ids no
// client can collide with, answers the client never sees), for at most
// the proxy's WithListWait. Arguments are read at any depth and judged as
// over stdio: those nested past the depth limit are forwarded unchecked,
// refused with WithStrict.
//
// Each process starts in a process session of its own (setsid on Unix;
// see process.go), and a small number (New's warm) wait started for the
// next session or the pool, each replaced when taken, so that a session's
// first answer costs no process start. A warm process costs the memory of
// one idle server, and a server with side effects at its start has them
// before its session comes.
//
// Over HTTP, POST carries the client's messages (one JSON-RPC message per
// body, or a batch of at most 100): a notification or a response is
// answered 202; a request is answered with a text/event-stream stream
// carrying the server's messages that concern it and then its response,
// when the client accepts text/event-stream, else with the response as
// JSON. GET opens the session's stream of the server's other requests and
// notifications (one at a time); DELETE ends the session. Bodies are
// bounded at 4 MiB (413 beyond), processes at 1000 (503 for a new session
// beyond), and a session with no request under way and no stream open for
// 30 minutes is ended. A request whose params is neither an object nor
// null is answered by the proxy, never forwarded (a server may drop it
// without an answer, as the TypeScript SDK does): an array with -32602
// Invalid params, a string, number or boolean with -32600 Invalid Request.
//
// Streams can be resumed. Every event carries an id, "N-M" (the session's
// stream N, its event M), and a POST's stream begins with an event that
// has an id and no data (for protocol versions from 2025-11-25 on, before
// 2026-07-28), so that a client whose connection breaks before the first
// message can resume too. A GET with Last-Event-ID resumes the stream of
// that event: the events after it that the stream still keeps (its latest
// 100), then the rest, to the response; the client gone, the stream's
// responses and progress wait for it. A session keeps the 16 latest POST
// streams that ended or whose client went; an older one is forgotten and
// the responses it still awaited are dropped. The GET stream can be
// resumed while no other is open. A Last-Event-ID of no stream kept is
// answered 400.
//
// The server's messages go where the client can read them, each once and
// in the order the server wrote them: a response to the POST of its
// request (kept for a resume when that client has gone from its stream,
// dropped when it has gone from its JSON answer); a progress notification to
// the stream of the request that carried its progress token; another
// request or notification to the GET stream, else to the oldest open POST
// stream, else to a backlog of the 1000 latest, delivered when a GET
// stream opens.
//
// The limits of proxy.WithGuard and proxy.WithLimiter are shared by all
// the sessions, per tool (and per proxy.WithLimitBy's value), as over
// proxy.Proxy.HTTPHandler: one process per session must not mean a limit
// per session. WithLimitBy's function is called once per session, with its
// initialize request carrying the new session's Mcp-Session-Id header, so
// that a function of that header limits per session.
//
// A session ends when the client sends DELETE (answered at once, the
// process stopped in the background), when it is idle, at Close, or when
// its process exits. Then the process's stdin is closed and it has two
// seconds to exit before it is killed with its process group (what it
// started goes with it); every request still waiting for its response gets
// a JSON-RPC error (code -32000) rather than hanging, and later requests
// for the session get 404.
//
// A client of revision 2026-07-28 has no session: a POST whose _meta or
// MCP-Protocol-Version header names that revision or a later one is served
// on its own, whatever its Mcp-Session-Id, once checked as the TypeScript
// SDK checks it (the header and the _meta agree, Mcp-Method and Mcp-Name
// name the body's method and tool, the _meta holds the client's
// capabilities; else 400 with a JSON-RPC error, -32020 or -32602; a
// revision the server does not serve, -32022 with those it does). GET and
// DELETE with such a header are answered 405, as a server without sessions
// answers them. The first such request starts a process and asks it
// server/discover with the proxy's own client info (within 30 seconds, else
// the request gets a JSON-RPC error and the next one asks again):
//
//   - A server that names 2026-07-28 among its supportedVersions gets the
//     requests as they are, server/discover and subscriptions/listen
//     included.
//   - Any other is of the session era, and bridged: the proxy initializes
//     each of its processes itself (revision 2025-11-25, no client
//     capabilities) and lists its tools, as for a session; it answers
//     server/discover from the initialize result (without listChanged and
//     subscribe, which no stateless client can be told of); it forwards
//     requests without the stateless _meta keys (a server of that era may
//     refuse a request naming a later revision); results gain resultType
//     "complete", and the lists and resources/read ttlMs 0 and cacheScope
//     "private", where they lack them. subscriptions/listen is answered
//     -32601.
//
// Either way the requests are served by a pool of processes, one pool per
// proxy.WithLimitBy value (so that limits stay per that value): an idle
// process takes a request; when every one has a request under way a new one
// starts, up to 8, past which the least busy one takes it; a process idle
// for 5 minutes is stopped, and one that exits is replaced when a request
// needs it. Since clients share a process, each request goes to it under an
// id of the proxy's own, unique in the process (and so does its progress
// token); the answer and the notifications come back under the client's, as
// the client wrote them. The answer is an event stream (without event ids:
// the revision has no resumption) when the client accepts one and a message
// for the request comes before its response (or a keep-alive is due: 15
// seconds), as the TypeScript SDK streams; a response that comes alone is
// JSON, with the HTTP status the SDKs give it (404 for -32601; 400 for
// -32700, -32600, -32020, -32021 and -32022; else 200). A progress
// notification goes to the stream of its token, a notification of
// a subscription to the subscription's stream, any other to the one request
// under way on the process if there is exactly one and it has a stream, and
// is dropped otherwise. A request of the server is answered by the proxy:
// ping with {}, anything else with -32601, since a stateless client cannot
// be asked anything in the middle of its request. A client's
// notifications/cancelled goes to the process serving the one request under
// way with that id from a client with the same Authorization header, under
// the proxy's id for it; a client that goes before its answer cancels its
// request. A request whose server sends nothing for it for 5 minutes gets
// -32001 and is cancelled; a process that does not read a request for that
// long is stopped, and its requests get -32603, as when a process exits.
// Pooled processes count in the bound of 1000 processes.
//
// A tool may mirror arguments in headers: a property of its inputSchema
// marked "x-mcp-header": "Name" (SEP-2243). A client of revision 2026-07-28
// that calls it must send each such argument it gives again in the header
// Mcp-Param-Name, as it is or as "=?base64?…?=": a header missing, in a
// Base64 form that is not canonical or not UTF-8, or naming another value
// (integers compared as numbers) is answered 400 with -32020 and the
// disagreeing pair in data.mismatch, as the TypeScript SDK v2 server
// answers it, and the call reaches no process. The proxy learns the
// declarations from the tools/list results its pool returns; for a call of a
// tool it does not know it lists the tools itself first (every page, in the
// call's revision; each page within 30 seconds, else the call is forwarded
// unchecked), and it forgets them when a process says its tools changed
// (notifications/tools/list_changed). Tools without declarations, tools
// whose declarations break the revision's rules (a client leaves them
// out), and clients of the session era are not concerned.
//
// proxy.CommandHandler serves a Server behind the proxy's HTTP safety, as
// HTTPHandler: the Host and Origin check, the bound on requests at once,
// the body's read deadline and memory budget. It authenticates no one:
// wrap it in an authenticating handler as the deployment needs.
package sessions

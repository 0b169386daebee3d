// Command selfheal checks tool arguments against a JSON Schema and prints
// what a model would be told, keeps a lockfile of an MCP server's tool
// contracts, and puts any MCP server, over stdio or Streamable HTTP, behind
// a proxy that answers bad tool calls.
//
//	selfheal check --schema FILE --args FILE [--action NAME] [--locale TAG]
//	               [--examples=false] [--draft 2020|2019|7|6|4] [--engine v6|v5] [--json]
//
// Exit status: 0 when the arguments are valid (nothing is printed), 1 when
// they are not (the validation_error, or with --json the issues as Zod-style
// JSON, on standard output), 2 for a usage error, an unreadable file,
// malformed JSON or a schema that does not compile (one line on standard
// error).
//
//	selfheal lock [--out selfheal.lock] [--timeout 30s] -- COMMAND [ARG...]
//
// starts the MCP server COMMAND over stdio, lists all its tools, writes
// their contracts to the lockfile (--out - writes standard output) and stops
// the server. Exit 0, or 2 with one line on standard error.
//
//	selfheal diff [--json] [--fail-on breaking|risky|safe|cosmetic|never] OLD NEW
//	selfheal diff [--json] [--fail-on ...] --live OLD -- COMMAND [ARG...]
//
// compares two lockfiles, or a lockfile with the tools the server COMMAND
// lists now, and prints one line per change, most severe first
// ("BREAKING billing.pay amount: Minimum raised from 0 to 1"), or with --json
// the changes as a JSON array. Exit 1 when a change is BREAKING (or as
// severe as --fail-on), 0 otherwise, 2 for a usage error, an unreadable or
// invalid lockfile, or a server that fails (one line on standard error).
//
//	selfheal call [--json] [--timeout 30s] [--protocol-version V] -- COMMAND [ARG...] TOOL ARGS.json
//
// starts the stdio server COMMAND, calls TOOL once with the JSON arguments
// in ARGS.json ("-": standard input) and prints what the model would read,
// parsed: a validation_error's fields and recovery (and server_message, what
// the server said when a proxy explained its rejection), a tool_error's
// code, message, recovery, actions, details and retry_after, a warning
// beside its result, or the text of a result that is no envelope; with
// --json one JSON object, where either envelope carries its code
// (VALIDATION_ERROR for a validation_error), so that a script switches on
// one field. The quickest way for a server author to see what a model reads.
// It speaks MCP 2026-07-28 and falls back to 2025-11-25 for a server that
// does not offer it; --protocol-version asks for another revision. A result
// that asks for input first (resultType input_required) is listed, not
// answered. Exit 0 when the call succeeded, 1 when it failed (an error
// result or a JSON-RPC error) or asked for input, 2 for a usage error or a
// server that cannot be reached.
//
//	selfheal proxy [--strict] [--locale TAG] [--examples=false] [--typos=off] [--lockfile FILE]
//	               [--max-issues N] [--max-bytes N] [--max-value-runes N] [--redact a,b]
//	               [--max-active N] [--max-queued N] [--rate R] [--burst N]
//	               [--max-depth N] [--log FILE] [--] COMMAND [ARG...]
//
// starts the MCP server COMMAND and relays JSON-RPC between it and the
// client on standard input and output, unchanged, except for the tool calls
// whose arguments fail the tool's input schema. The server decides: such a
// call is forwarded, and when the server rejects it (a JSON-RPC error, or a
// result with isError) for its arguments (a -32602, a message naming a field
// the schema flags, a missing field, a wrong type, a value outside an enum)
// the client reads selfheal's validation_error in place of the server's
// answer, with what the server said. When the server accepts it, or refuses
// it for a reason of its own while every issue is one servers tolerate (an
// extra key, a loose format, a quoted number: a missing file is not the
// extra key's fault), its answer passes untouched and the disagreement is
// logged. A near miss of a declared key that was
// not sent ('dryrun' for 'dryRun', unless --typos=off), which a server drops
// without a word, is answered by the proxy and never reaches the server.
// --strict answers every call that fails the schema before it reaches the
// server: use it for servers that do not validate their own input, where a
// bad call would run. Arguments nested deeper than --max-depth are checked
// down to it, the part past it left to the server, or with --strict answered
// with too_big. The server's command
// starts at the first argument that is not a flag of the proxy (or a flag's
// value), with or without "--" before it, and takes every argument after it,
// flags and "--" included: selfheal proxy node server.js --port 3 gives
// --port 3 to the server. The server's standard error is the proxy's; SIGINT
// and SIGTERM are passed on to it; when standard input ends, the server's is
// closed and the proxy waits for it. Exit status: the server's (128+N when
// signal N killed it), or 2 for a usage error, an unreadable lockfile or
// log, or a server that cannot be started (one line on standard error).
//
//	selfheal proxy --listen ADDR [flags] --upstream URL
//	selfheal proxy --listen ADDR [flags] [--] COMMAND [ARG...]
//	  flags: the above, and [--redis URL [--redis-fail open|closed]
//	         [--redis-timeout 500ms]]
//	         [--limit-by session|header:NAME] [--metrics ADDR]
//
// serves MCP's Streamable HTTP transport on ADDR with the same checks: in
// front of the Streamable HTTP server at URL, at URL's path (requests to
// other paths get 404), or of the stdio server COMMAND, one process per
// session, at /mcp. It prints "selfheal proxy: listening on
// http://ADDR/PATH" on standard error (so ADDR may be 127.0.0.1:0). SIGINT
// or SIGTERM stops it: no new request, the calls under way have 10
// seconds to finish (a second signal cuts them), the standalone streams
// (GET) end a second after them, the sessions' processes are ended; exit 0.
// A client has --read-timeout (30s) to send a request, headers and body;
// a kept-alive connection waits --idle-timeout (2m) for the next; request
// bodies take at most --body-memory MiB (128) at once, a request that does
// not fit waits 10 seconds, then gets 503; past the open-file limit a new
// connection gets 503. With --upstream, a server silent for
// --upstream-timeout (5m) before its response or within it leaves the
// client a JSON-RPC error (a call that streams progress is never cut).
// --allowed-hosts names the Host values served (by default, on a loopback
// address, only loopback names: the defence against DNS rebinding);
// --allowed-origins the web pages' origins allowed beside loopback pages and
// the proxy's own. The same bounds are proxy.HTTPHandler's options.
//
// --redis redis://[user:password@]host:port/db keeps the counters of
// --max-active and --rate in Redis, shared by every replica (there is no
// queue: --max-queued is refused, a call beyond --max-active is answered
// SERVER_BUSY at once); --redis-fail says what a call gets while Redis
// cannot be reached or does not answer within --redis-timeout (500ms):
// admitted unchecked (open, the default) or SERVER_BUSY (closed). The
// limits are checked again on the first call after Redis is back;
// go-redis's own log lines go to the proxy's log, one a minute at most.
// Without --redis, the limits of --listen are kept in the proxy's
// process and shared by all its sessions, per tool. --limit-by applies the limits per session
// (its Mcp-Session-Id) or per value of a request header (header:X-Api-Key)
// instead of per tool for all; values are hashed, never stored in clear.
// --metrics ADDR, in every mode, serves Prometheus metrics at /metrics on
// ADDR (printed as "selfheal proxy: metrics on http://ADDR/metrics"):
// selfheal_proxy_calls_total{tool}, selfheal_proxy_answered_total{tool,code},
// selfheal_proxy_issues_total{code}, selfheal_proxy_added_latency_seconds,
// selfheal_proxy_upstream_errors_total, with the Go and process metrics;
// selfheal_proxy_explained_total{tool} counts the calls the server rejected
// and the proxy explained (answered too), and
// selfheal_proxy_schema_disagreements_total{tool} the calls the schema
// found issues in and the server accepted, or refused for a reason of its
// own: a tool that keeps counting them advertises a schema stricter than
// its server, which --strict would enforce. selfheal_repairs_total{tool,outcome} counts how the answers to
// bad calls settled (repaired, failed_same, failed_other, abandoned: see
// proxy.WithOutcomes) and selfheal_repair_attempts the retries a repair
// took. At most 1000 tool names are kept as labels, then "other". --log
// FILE appends the call log of proxy.WithCallLog: each answer, its
// settlement on a second line, and the calls' tallies.
//
//	selfheal report [--json] [--html FILE] LOG...
//
// reads call logs (rotated ones too: gzipped ones are read as such) and
// prints, per tool and in total, the calls, the bad calls, the repairs
// after 1, 2 and 3+ retries, the answers failed again, abandoned and not
// settled, the repair rate (repaired / (repaired + abandoned)), the fields
// and issue codes most often wrong, the tools whose server accepted calls
// their schema calls bad, and the time span. --json prints it as JSON;
// --html FILE also writes it as one self-contained page with bars. A line
// that is not the log's is counted and skipped, with one warning on
// standard error. Exit 0, or 2 for a usage error or a file that cannot be
// read.
//
//	selfheal wrap [--client NAME | FILE] [--flags "PROXY FLAGS"] [--yes]
//	selfheal unwrap [--client NAME | FILE] [--yes]
//
// puts every stdio server of an MCP client's configuration behind selfheal
// proxy, or takes it out again: --client claude-desktop, claude-code
// (.mcp.json here and ~/.claude.json), cursor (.cursor/mcp.json here and
// ~/.cursor/mcp.json), windsurf or vscode (.vscode/mcp.json here and the
// user folder's mcp.json), or a FILE. The change is printed as a unified
// diff and written only with --yes, after a backup beside the file
// (FILE.selfheal-YYYYMMDDTHHMMSSZ.bak), by a rename of a complete new file;
// comments, order and layout are kept (JSON with comments, as VS Code's),
// and only "command" and "args" change, so that unwrap restores the file
// byte for byte. The command written is selfheal when it is on PATH,
// "npx -y selfheal" when run through npx (the npm shim sets
// SELFHEAL_VIA_NPX=1), else this executable's path. Entries already behind
// the proxy, remote ones (url, serverUrl, type http or sse) and disabled ones
// are left alone and named. Exit 0, or 2 with one line on standard error
// and nothing written for a file that does not parse, that changed while
// wrap ran, or that cannot be written beside.
//
//	selfheal version
//	selfheal --version
//
// prints the version, the commit, the build's date and the Go and platform:
// stamped by the release build, or read from the build info (go install
// module@vX names vX; a build in a checkout its commit).
package main

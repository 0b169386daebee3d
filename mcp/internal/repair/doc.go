// Package repair follows what happens after selfheal answers a bad tool
// call: the same session's next call of the same tool settles the answer
// as repaired, failed again (on the same fields or on others), or, when no
// such call comes, abandoned. It is shared by the proxy (mcp/proxy) and
// the Go integrations (mcp/gosdk, mcp/mcpgo), which tell it what they
// answered and what they let through; it knows nothing of MCP.
//
// A Tracker keeps one small entry per (session, tool) with an answer not
// yet settled: the answer's id, how many answers in a row the tool got,
// when, and a hash of the answer's field paths (so that "failed again on
// the same fields" needs no string kept). Nothing the model sent is kept.
// Memory is bounded per session (Limits.PerSession) and in total
// (Limits.Total): past either bound, the oldest entry is settled as
// abandoned to make room. An answer with no call of its tool within
// Limits.Within is abandoned too; that is settled lazily, by the next
// event of any session or by Sweep, and there is no goroutine.
package repair

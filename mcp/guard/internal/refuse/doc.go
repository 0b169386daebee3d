// Package refuse holds the tool_errors a guard answers with, for package
// guard and its shared backends (mcp/guard/redisguard) alike: a call turned
// away reads the same whichever backend turned it away. Their text is
// fixed: nothing of the call, the caller, the key or the limits reaches the
// model.
package refuse

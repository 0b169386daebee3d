// Package callerror builds the envelope.CallError of a failed tool call
// from the envelope read back from its result (envelope.Parse), for the
// module's MCP clients (mcp/gosdk.CallTool, mcp/mcpgo.CallTool) and the
// selfheal call command. A user finds the CallError with errors.As and
// never builds one, so the constructor is not part of package envelope's
// API.
package callerror

// Command mcpserver is an example MCP server on the official Go SDK
// (github.com/modelcontextprotocol/go-sdk) whose tools answer bad calls the
// selfheal way. It speaks MCP over stdio:
//
//	go run ./examples/mcpserver
//
// Its tools: billing.get_invoice (NOT_FOUND with the action to call
// instead; rate-limited), billing.list_invoices (formats, enums, bounds, a
// union; a DEPRECATED warning on a success), billing.export_invoices (one at
// a time: SERVER_BUSY), users.create (nested objects and arrays). Any bad
// argument is answered with a validation_error listing every problem. Logs,
// including the errors the model does not see, go to standard error.
//
// Arguments nested deeper than 64 levels are refused with one issue (see
// gosdk.WithMaxDepth). go-sdk ends the session on a message nested deeper
// than 1000 levels; this server reads standard input through a filter that
// answers such a message itself (a validation_error for a tools/call, a
// JSON-RPC Invalid Request error for another request) and keeps serving.
// When the session ends otherwise (the client closes standard input, or
// sends what go-sdk cannot read), the server logs why and exits.
//
// Flags:
//
//	-locale TAG      language of validation errors when the client declares
//	                 none (en by default)
//	-lockfile PATH   a known-good lockfile of the tools (written by
//	                 "selfheal lock"; SELFHEAL_LOCKFILE when the flag is not
//	                 given): validation errors then carry a
//	                 <contract_awareness> section with the BREAKING and RISKY
//	                 changes of the failed tool since that lockfile. A
//	                 lockfile that cannot be read stops the server.
//
// For example, with the lockfile of an older version of the tools:
//
//	go run ./examples/mcpserver -lockfile examples/mcpserver/testdata/older.lock
package main

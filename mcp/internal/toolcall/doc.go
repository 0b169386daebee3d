// Package toolcall holds what the MCP integrations (mcp/gosdk, mcp/mcpgo)
// share and what does not depend on either SDK: their one option set
// (Option, Config; both packages re-export the options under the same
// names, rendered with their documentation from exported_options.go.tmpl),
// the _meta keys, the structured form of a validation failure's issues,
// the envelope of a handler's error, the decoding of raw arguments and the
// issues of arguments that are absent, not an object or not JSON, the
// per-call engine, the guards, and the contract awareness of validation
// errors (see Contract).
package toolcall

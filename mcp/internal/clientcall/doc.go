// Package clientcall holds what the MCP client helpers (gosdk.CallTool,
// mcpgo.CallTool) share and what does not depend on either SDK: reading a
// result's envelope back as an *envelope.CallError or a warning, and the
// retry policy with its options (Option, which both export as CallOption).
// Each SDK package converts its result to Outcome and its tool annotations
// to Hints; everything else is here.
package clientcall

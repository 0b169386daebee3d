// Package envelope writes and reads the XML wire shapes that selfheal sends
// to a language model: <tool_error> for any failed tool call and
// <validation_error> (with its optional <contract_awareness> section) for
// invalid arguments. With the module's internal/xmlenc, through which it
// writes, it is the only code that writes or escapes XML, and it knows
// nothing of what the messages mean.
//
// # Writing
//
// A handler builds a tool error fluently and returns it, as a result or as
// its Go error; no Build step is needed:
//
//	return envelope.Error(envelope.NotFound, "No invoice with that ID").
//		Suggest("List invoices first, then retry with a real ID").
//		Actions("billing.list_invoices").
//		Detail("requestedId", id)
//
// [Wrap] turns whatever error a handler returned into the envelope to send:
// an envelope passes through unchanged, anything else becomes a generic
// INTERNAL_ERROR that does not leak the error's text. [FromPanic] does the
// same for a recovered panic.
//
// [ValidationError] renders already-worded field lines. The formatter streams
// the same bytes into its own buffer through the same internal writer.
//
// Output is exactly the layout of the design document: two-space
// indentation, \n line ends, no XML declaration, no newline after the closing
// tag, sections in a fixed order and omitted when empty.
//
// # Escaping
//
// Every string in every slot goes through one escaper (internal/xmlenc), so
// any input gives well-formed XML with exactly the intended elements and
// attributes (fuzz-tested in package fuzz). Element text escapes & and <,
// and > only where it would close "]]>", so it stays readable; attributes
// also escape quotes and line ends. Characters XML 1.0 forbids never appear
// raw: C0 controls are shown as \u0000 to \u001f, invalid UTF-8 and the
// noncharacters U+FFFE and U+FFFF become U+FFFD. Rendering also normalizes
// an empty Code to INTERNAL_ERROR, an unknown Severity to error,
// retry_after to whole seconds (at most 24 hours), an empty validation
// recovery to DefaultRecovery; everything else round-trips through Parse
// exactly.
//
// # Reading
//
// [Parse] is the client side: it finds the first envelope in a tool result,
// reads it strictly with a reader written for these two shapes (what XML
// means identically, such as numeric character references, is accepted)
// and returns typed values, or an error for anything that is not exactly
// one of these shapes. [CallError] is a failed call's envelope as a Go
// error, for MCP clients (see mcp/gosdk.CallTool and mcp/mcpgo.CallTool).
//
// # Performance
//
// String renders with one allocation, the string, for typical envelopes;
// selfheal's Engine.Append writes validation errors into a caller's buffer
// without allocating. The README's speed section has the figures.
package envelope

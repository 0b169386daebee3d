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
// Every string in every slot goes through one escaper, so any input gives
// well-formed XML with exactly the intended elements and attributes
// (fuzz-tested in package fuzz):
//
//   - element text escapes & and <, and > only where it would close "]]>",
//     so text stays readable for the model; \n and \t stay raw; \r becomes
//     &#13; so that XML line-end handling does not turn it into \n;
//   - attribute values also escape " and write \t, \n and \r as &#9;, &#10;
//     and &#13;, which attribute-value normalization would otherwise turn
//     into spaces;
//   - characters XML 1.0 forbids never appear raw: C0 controls other than
//     \t, \n and \r are shown visibly as the six characters \u0000 to \u001f
//     (lower-case hex); each byte that is not part of valid UTF-8 (as ranging
//     over a Go string sees it, which includes UTF-8-encoded surrogates) and
//     the noncharacters U+FFFE and U+FFFF become U+FFFD.
//
// [Parse] therefore returns the strings that were written after that
// replacement; everything else round-trips exactly, leading and trailing
// spaces included. Rendering also normalizes a few values, documented where
// they are: an empty [Code] is INTERNAL_ERROR, an unknown [Severity] is error,
// retry_after is whole seconds rounded up and capped at 24 hours, an
// empty validation recovery is [DefaultRecovery], and an empty [Contract] is
// omitted.
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
// the writer underneath appends into a reused buffer without allocating (a
// test asserts it with testing.AllocsPerRun), which is how selfheal's
// Engine.Append writes validation errors. Measured with
// go test -bench . -benchmem ./envelope/ (Go 1.26.8, linux/amd64, 2 vCPU,
// shared machine, so ±20%), on the design document's examples:
//
//	BenchmarkToolErrorAppend     ~125 ns/op     0 B/op    0 allocs/op  tool_error into a reused buffer (~3 GB/s)
//	BenchmarkValidationAppend    ~110 ns/op     0 B/op    0 allocs/op  validation_error into a reused buffer
//	BenchmarkBuilderString       ~555 ns/op   576 B/op    5 allocs/op  a fresh Error(...) chain to a string
//
// Parse reads the seed's tool_error in about 1.7 µs with 3 allocations
// (bench/parse_test.go, medians of 6 paired runs: 0.077 × the encoding/xml
// reader it replaced, 0.068 × xml.Unmarshal of the same bytes); it runs on
// the client, once per tool result.
package envelope

// Package envelope writes and reads the XML wire shapes that selfheal sends
// to a language model: <tool_error> for any failed tool call and
// <validation_error> (with its optional <contract_awareness> section) for
// invalid arguments. With the module's internal/xmlenc, through which it
// writes, it is the only code that writes or escapes XML, and it knows
// nothing of what the messages mean.
//
// A handler builds a tool error fluently with [Error] and returns it, as a
// result or as its Go error:
//
//	return envelope.Error(envelope.NotFound, "No invoice with that ID").
//		Suggest("List invoices first, then retry with a real ID").
//		Actions("billing.list_invoices").
//		Detail("requestedId", id)
//
// [Wrap] and [FromPanic] turn whatever error a handler returned, or a
// recovered panic, into the envelope to send; [ValidationError] answers
// invalid arguments. Any input renders as well-formed XML; [ToolError.String]
// gives the layout and the escaping rules.
//
// [Parse] is the client side: it reads an envelope back, strictly, as typed
// values. [CallError] is a failed call's envelope as a Go error.
package envelope

// Package selfheal turns validation failures into messages a language model
// can act on.
//
// When a model calls a tool with bad arguments, the server answers with one
// exact line per problem (what was sent, what was expected) inside a small
// XML envelope that ends by telling the model to fix the call and not to
// apologise:
//
//	<validation_error action="billing.get_invoice">
//	  <field name="id">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
//	  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
//	</validation_error>
//
// An Engine accepts the failures a Go service already produces (an
// issues.List, the adapters' errors, and the raw errors of the validation
// libraries whose adapters it is given: go-playground/validator,
// encoding/json, santhosh-tekuri/jsonschema v5 or v6), normalizes them
// into issues typed like Zod's, words them in the client's language and
// writes the envelope. Any other error becomes an INTERNAL_ERROR
// tool_error that does not leak its text. The data flows one way: adapter
// → issues → formatter → envelope.
//
// Wiring is explicit: an Engine reads an error through issues.Carrier,
// which the adapters' errors implement and a user's own error type may
// implement too, and through the adapters passed to WithAdapters, and
// through nothing an import registers. The root package imports no
// adapter and no validation library, so a program links only the
// validation libraries it imports (see Engine.Issues).
package selfheal

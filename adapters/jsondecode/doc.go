// Package jsondecode turns encoding/json decoding failures into issues, for
// servers that decode a model's arguments straight into a Go struct.
//
// Two entry points, for two situations:
//
//   - Decode is what a handler calls instead of json.Unmarshal (read a
//     request body whole first, bounded with http.MaxBytesReader: a
//     second JSON value in it is trailing data, not the next message). It
//     rejects unknown keys and trailing data, and reports
//     every problem in the document, in document order, each with the value
//     the model actually sent: encoding/json stops at the first error and
//     describes the value ("string", "number 1.5") instead of holding it, and
//     a model that is told one problem per turn needs one turn per problem.
//   - Issues maps an error that encoding/json already returned. It cannot
//     see the input, so what it reports is as exact as the error is, and no
//     more (see Issues for what is lost).
//
// Decode parses the input once into an order-keeping tree, walks the target
// type over it with encoding/json's rules, and only when nothing is wrong
// lets encoding/json decode for real: a valid call costs about one extra
// parse, and v ends up exactly as encoding/json would leave it. The parser
// is written here because no library does this job: encoding/json (and its
// Decoder's tokens) stops at the first error and keeps no byte offsets of
// the values it read, and the walk needs both to report every problem with
// the value sent and to run a type's UnmarshalJSON on its own bytes.
//
// Malformed JSON has no issue code: it is a custom issue (Format "json")
// whose Input is the ~20 bytes around where the input broke, not the
// document, which may be large and is broken anyway.
//
// Issue.Source names the check for logs: "json:syntax", "json:trailing",
// "json:type", "json:range", "json:unknown_field", "json:format",
// "json:key" and "json:unmarshaler"; input nested deeper than
// issues.DefaultMaxDepth is refused before parsing with Source "selfheal:depth".
package jsondecode

package formatter

import "strings"

// DefaultServerMessageRunes is where ServerMessage cuts a server's answer
// unless told otherwise: enough for a zod issue list or the last lines of
// an exception, and a quarter of the fields' byte budget (DefaultMaxBytes),
// so that what the server said cannot crowd out what selfheal says.
const DefaultServerMessageRunes = 1000

// ServerMessage returns msg, a tool server's own answer to a call it
// rejected, as a validation_error's <server_message> shows it
// (envelope.ValidationError.ServerMessage): without the spaces and line
// ends around it, on one line, and cut after budget characters (zero or
// less means DefaultServerMessageRunes) with its real size stated in the
// formatter's language: "aaaa… (5000 characters)".
//
// It renders the message as a value sent is rendered, unquoted: a newline
// is shown as \n and a tab as \t, as in the JSON the server wrote them in,
// so the model reads a multi-line error whole while the envelope keeps one
// line per element; other controls, invisible and bidirectional
// characters are shown as \uXXXX, invalid UTF-8 as \ufffd. As for a value,
// the size of a message over 64 KiB is stated in bytes, so that a server
// answering with megabytes costs no more than its budget to show. XML
// escaping is left to the envelope, the one place that escapes.
func (f *Formatter) ServerMessage(msg string, budget int) string {
	msg = strings.TrimSpace(msg)
	if budget <= 0 {
		budget = DefaultServerMessageRunes
	}
	pv := preview{budget: budget}
	out := pv.appendString(nil, msg, 0)
	if !pv.truncated {
		return string(out)
	}
	// Off the hot path (one call per rejected call): a fresh state rather
	// than a pooled one keeps the message out of the pool.
	s := &state{f: f}
	return string(s.appendSized(nil, out, msg))
}

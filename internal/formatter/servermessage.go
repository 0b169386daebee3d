package formatter

import (
	"strings"
	"unicode/utf8"
)

// ServerMessage returns msg, a tool server's own answer to a call it
// rejected, as a validation_error's <server_message> shows it
// (envelope.ValidationError.ServerMessage): without the spaces and line
// ends around it, on one line, whole when it fits in budget bytes (zero or
// less means the formatter's byte budget, Options.MaxBytes: 4 KiB by
// default, the most the field lines may take), else cut there, rune-safely
// and never inside an escape, with how much was cut stated in the
// formatter's language: "aaaa… (4996 characters cut)".
//
// The whole message matters: a zod error lists every alternative a union
// offered, and the last of them is as likely the one meant as the first
// (a 1,748-character message cut at 1,000 lost two of its five). So the
// server's words get the same room as selfheal's own lines, no less.
//
// It renders the message as a value sent is rendered, unquoted: a newline
// is shown as \n and a tab as \t, as in the JSON the server wrote them in,
// so the model reads a multi-line error whole while the envelope keeps one
// line per element; other controls, invisible and bidirectional
// characters are shown as \uXXXX, invalid UTF-8 as \ufffd. As for a value,
// the size of what was cut is stated in bytes past 64 KiB, so that a
// server answering with megabytes costs no more than its budget to show.
// XML escaping is left to the envelope, the one place that escapes.
func (f *Formatter) ServerMessage(msg string, budget int) string {
	msg = strings.TrimSpace(msg)
	if budget <= 0 {
		budget = f.maxBytes
	}
	// The preview counts characters (an escape such as \n is one), the
	// budget is bytes: start with as many characters as bytes and take
	// fewer while what they show is longer. A character shows as 6 bytes
	// at most (\u0000), so the last try always fits.
	chars := budget
	for try := 0; ; try++ {
		pv := preview{budget: chars}
		out := pv.appendString(nil, msg, 0)
		shown := len(out)
		if pv.truncated {
			shown -= len("…")
		}
		if shown <= budget {
			if !pv.truncated {
				return string(out)
			}
			// What was cut starts after the characters shown (each
			// rune, or byte of invalid UTF-8, one).
			at := 0
			for range chars {
				_, size := utf8.DecodeRuneInString(msg[at:])
				at += size
			}
			// Off the hot path (one call per rejected call): a fresh
			// state rather than a pooled one keeps the message out of
			// the pool.
			s := &state{f: f}
			return string(s.appendSizedAs(nil, out, msg[at:], s.m("server_message.cut")))
		}
		switch {
		case try >= 4:
			chars = budget / 6
		default:
			chars = min(chars-1, chars*budget/shown)
		}
		chars = max(chars, 0)
	}
}

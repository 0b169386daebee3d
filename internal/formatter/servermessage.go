package formatter

import (
	"strings"
	"unicode/utf8"
)

// ServerMessage returns msg, a tool server's own answer to a call it
// rejected, as a validation_error's <server_message> shows it: trimmed,
// rendered on one line as a value sent is (unquoted, a newline as \n),
// whole when it fits in budget bytes (zero or less means Options.MaxBytes),
// else cut there, rune-safely and never inside an escape, with how much
// was cut stated: "aaaa… (4996 characters cut)". The server's words get
// the room selfheal's own lines get: a zod error lists every alternative
// of a union, and the last is as likely the one meant as the first.
func (f *Formatter) ServerMessage(msg string, budget int) string {
	msg = strings.TrimSpace(msg)
	if budget <= 0 {
		budget = f.maxBytes
	}
	// The preview counts characters, the budget is bytes: take fewer
	// characters while what they show is longer. A character shows as 6
	// bytes at most (\u0000), so the last try always fits.
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
			// What was cut starts after the characters shown.
			at := 0
			for range chars {
				_, size := utf8.DecodeRuneInString(msg[at:])
				at += size
			}
			// A fresh state keeps the message out of the pool.
			s := &state{f: f}
			return string(s.appendSized(nil, out, msg[at:], s.m("server_message.cut")))
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

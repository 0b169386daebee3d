package xmlenc

import "unsafe"

// DefaultRecovery is envelope.DefaultRecovery (a test in envelope checks that
// they agree): the recovery line of a validation_error when none is given.
const DefaultRecovery = "Fix the fields above and call the tool again. Do not explain the error."

// AppendValidationOpen appends the opening line of a validation_error,
// `<validation_error action="...">` and a newline. With [AppendField] and
// [AppendValidationClose] it lets a caller stream the envelope into its own
// buffer without building an envelope.ValidationError.
func AppendValidationOpen(dst []byte, action string) []byte {
	dst = append(dst, `<validation_error action="`...)
	dst = appendShort(dst, action, inAttr)
	return append(dst, "\">\n"...)
}

// AppendField appends one `  <field name="...">...</field>` line and a
// newline. Name and text may each be a string or a []byte, so a caller that
// assembles the text in a scratch buffer passes it without a conversion.
func AppendField[N, T string | []byte](dst []byte, name N, text T) []byte {
	dst = AppendFieldOpen(dst, name)
	dst = AppendText(dst, text)
	return append(dst, FieldClose...)
}

// EscapeTextFrom escapes dst[start:] in place as element text: it returns
// what AppendText(dst[:start], dst[start:]) returns, so a caller can render
// a piece of text straight into its output and escape it there. Most pieces
// need nothing, and are only read; the others are copied into scratch (the
// escaped form is longer, and is written over them), which is returned for
// reuse.
func EscapeTextFrom(dst []byte, start int, scratch []byte) ([]byte, []byte) {
	return escapeFrom(dst, start, scratch, inText)
}

// EscapeAttrFrom is [EscapeTextFrom] for a double-quoted attribute value,
// as AppendAttr writes it.
func EscapeAttrFrom(dst []byte, start int, scratch []byte) ([]byte, []byte) {
	return escapeFrom(dst, start, scratch, inAttr)
}

func escapeFrom(dst []byte, start int, scratch []byte, mode uint8) ([]byte, []byte) {
	tail := dst[start:]
	if plain(unsafe.String(unsafe.SliceData(tail), len(tail)), mode) {
		return dst, scratch
	}
	scratch = append(scratch[:0], tail...)
	return escapeString(dst[:start], unsafe.String(unsafe.SliceData(scratch), len(scratch)), mode), scratch
}

// plain reports whether s has nothing to escape in mode, eight bytes at a
// time where it can.
func plain(s string, mode uint8) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if !plain8(load8(s, i), mode) {
			break // plain8 may be wrong about a plain word: look closer
		}
	}
	for ; i < len(s); i++ {
		if special[s[i]]&mode != 0 {
			return false
		}
	}
	return true
}

// AppendFieldOpen appends the start of a field line, `  <field name="...">`,
// with name escaped: what AppendField writes before the text.
func AppendFieldOpen[N string | []byte](dst []byte, name N) []byte {
	dst = append(dst, FieldOpen...)
	dst = appendShort(dst, name, inAttr)
	return append(dst, `">`...)
}

// FieldOpen is what AppendFieldOpen writes before the escaped name, which
// a closing `">` follows.
const FieldOpen = `  <field name="`

// FieldClose is what AppendField writes after the text.
const FieldClose = "</field>\n"

// appendShort is appendEscaped for the short names and values of a line,
// which mostly have nothing to escape (see shortPlain).
func appendShort[T string | []byte](dst []byte, s T, mode uint8) []byte {
	if shortPlain(s, mode) {
		return append(dst, s...)
	}
	return appendEscaped(dst, s, mode)
}

// shortPlain reports whether s is short and has nothing to escape in mode:
// a glance at a short text's bytes is cheaper than a call to the escaper,
// which would copy it unchanged. A longer text is left to the escaper,
// which scans it eight bytes at a time.
func shortPlain[T string | []byte](s T, mode uint8) bool {
	if len(s) > 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if special[s[i]]&mode != 0 {
			return false
		}
	}
	return true
}

// AppendValidationClose appends the end of a validation_error: the optional
// more note, then what section appends (envelope's <contract_awareness>; nil
// appends nothing), the recovery line (empty means [DefaultRecovery]) and
// the closing tag, with no newline after it.
func AppendValidationClose(dst []byte, more string, section func(dst []byte) []byte, recovery string) []byte {
	return AppendValidationEnd(dst, more, "", section, recovery)
}

// AppendValidationEnd is [AppendValidationClose] with the server's own
// message, written as a <server_message> line between the more note and
// the section, and omitted when empty. It is a sibling rather than a new
// parameter because only a proxy that forwarded the call has a server
// message; the formatter's streaming path never does.
//
// The message is escaped as element text, like <message> of a tool_error:
// a newline in it is kept, so a caller that wants the envelope's one line
// per element cuts and folds it first (formatter.ServerMessage does both).
func AppendValidationEnd(dst []byte, more, serverMessage string, section func(dst []byte) []byte, recovery string) []byte {
	if more != "" {
		dst = AppendElem(dst, "  ", "more", more)
	}
	if serverMessage != "" {
		dst = AppendElem(dst, "  ", "server_message", serverMessage)
	}
	if section != nil {
		dst = section(dst)
	}
	if recovery == "" {
		recovery = DefaultRecovery
	}
	dst = AppendElem(dst, "  ", "recovery", recovery)
	return append(dst, "</validation_error>"...)
}

// AppendElem appends one indented element holding escaped text, and a
// newline: indent, <name>, text escaped with AppendText, </name>.
func AppendElem(dst []byte, indent, name, text string) []byte {
	dst = append(dst, indent...)
	dst = append(dst, '<')
	dst = append(dst, name...)
	dst = append(dst, '>')
	dst = AppendText(dst, text)
	dst = append(dst, "</"...)
	dst = append(dst, name...)
	return append(dst, ">\n"...)
}

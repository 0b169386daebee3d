package xmlenc

// DefaultRecovery is envelope.DefaultRecovery (a test in envelope checks that
// they agree): the recovery line of a validation_error when none is given.
const DefaultRecovery = "Fix the fields above and call the tool again. Do not explain the error."

// AppendValidationOpen appends the opening line of a validation_error,
// `<validation_error action="...">` and a newline. With [AppendField] and
// [AppendValidationClose] it lets a caller stream the envelope into its own
// buffer without building an envelope.ValidationError.
func AppendValidationOpen(dst []byte, action string) []byte {
	dst = append(dst, `<validation_error action="`...)
	dst = AppendAttr(dst, action)
	return append(dst, "\">\n"...)
}

// AppendField appends one `  <field name="...">...</field>` line and a
// newline. Name and text may each be a string or a []byte, so a caller that
// assembles the text in a scratch buffer passes it without a conversion.
func AppendField[N, T string | []byte](dst []byte, name N, text T) []byte {
	dst = append(dst, `  <field name="`...)
	dst = AppendAttr(dst, name)
	dst = append(dst, `">`...)
	dst = AppendText(dst, text)
	return append(dst, "</field>\n"...)
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

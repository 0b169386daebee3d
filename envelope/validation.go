package envelope

import "strconv"

// DefaultRecovery is the recovery line of a validation_error when none is
// given. It ends with "Do not explain the error." because a model's instinct
// is to apologise to the user before calling the tool again.
const DefaultRecovery = "Fix the fields above and call the tool again. Do not explain the error."

// ValidationError is the value form of a <validation_error> envelope: the
// answer to a tool call whose arguments were invalid. The field lines arrive
// already worded (the formatter words them); this package only writes and
// escapes them.
type ValidationError struct {
	Action string  // the tool action that was called; always written
	Fields []Field // one <field> line per issue, in order
	// Recovery is the last line; empty means DefaultRecovery.
	Recovery string
	// More is an optional note written after the fields, such as
	// "…and 3 more issues not shown."; omitted when empty.
	More string
	// Contract, when it has changes or a non-zero More, adds the
	// <contract_awareness> section; nil or empty omits it.
	Contract *Contract
}

// Field is one <field> line: the argument's path and what is wrong with it.
type Field struct {
	Name, Text string
}

// Contract is the <contract_awareness> section: the BREAKING and RISKY changes
// of the latest contract diff for the failed action, so a model trained on the
// old contract learns what changed in the same turn.
type Contract struct {
	Changes []ContractChange
	// More counts changes left out by the caller's cap. When positive it is
	// written as the section's omitted="N" attribute; zero or negative omits it.
	More int
}

// ContractChange is one <change> line of a [Contract]:
//
//	<change severity="BREAKING" field="amount" before="0" after="1">Minimum raised from 0 to 1</change>
//
// Severity and Field are always written; Before and After only when non-empty.
type ContractChange struct {
	Severity    string // the diff's classification, e.g. "BREAKING" or "RISKY"
	Field       string // the changed field's path
	Description string // what changed, in words
	Before      string // the old value or type, if any
	After       string // the new value or type, if any
}

// String returns the <validation_error> XML. It allocates the result; use
// [ValidationError.AppendXML] on a hot path.
func (v ValidationError) String() string {
	var buf [1024]byte // as ToolError.String: one allocation for typical envelopes
	return string(v.AppendXML(buf[:0]))
}

// AppendXML appends the <validation_error> XML to dst and returns the
// extended buffer; it is [AppendValidationOpen], one [AppendField] per field
// and [AppendValidationClose]. The layout follows [ToolError.AppendXML]. With
// enough capacity in dst it does not allocate.
func (v ValidationError) AppendXML(dst []byte) []byte {
	dst = AppendValidationOpen(dst, v.Action)
	for _, f := range v.Fields {
		dst = AppendField(dst, f.Name, f.Text)
	}
	return AppendValidationClose(dst, v.More, v.Contract, v.Recovery)
}

// AppendValidationOpen appends the opening line of a validation_error,
// `<validation_error action="...">` and a newline. With [AppendField] and
// [AppendValidationClose] it lets a caller stream the envelope into its own
// buffer without building a ValidationError.
func AppendValidationOpen(dst []byte, action string) []byte {
	dst = append(dst, `<validation_error action="`...)
	dst = appendEscaped(dst, action, inAttr)
	return append(dst, "\">\n"...)
}

// AppendField appends one `  <field name="...">...</field>` line and a
// newline. Name and text may each be a string or a []byte, so a caller that
// assembles the text in a scratch buffer passes it without a conversion.
func AppendField[N, T string | []byte](dst []byte, name N, text T) []byte {
	dst = AppendFieldOpen(dst, name)
	dst = appendEscaped(dst, text, inText)
	return AppendFieldClose(dst)
}

// AppendFieldOpen and AppendFieldClose write AppendField's line around a
// text the caller appends itself: escaped with AppendText, or as it is when
// Plain accepts it. A writer that renders the text in pieces it has checked
// writes it once, in place, instead of building it aside and scanning it
// again. The caller vouches for the text: one Plain rejects, appended
// unescaped, would make the envelope malformed.
func AppendFieldOpen[N string | []byte](dst []byte, name N) []byte {
	dst = append(dst, `  <field name="`...)
	dst = appendEscaped(dst, name, inAttr)
	return append(dst, `">`...)
}

// AppendFieldClose ends the line AppendFieldOpen began.
func AppendFieldClose(dst []byte) []byte {
	return append(dst, "</field>\n"...)
}

// AppendValidationClose appends the end of a validation_error: the optional
// more note, the optional contract_awareness section, the recovery line (empty
// means [DefaultRecovery]) and the closing tag, with no newline after it.
func AppendValidationClose(dst []byte, more string, c *Contract, recovery string) []byte {
	if more != "" {
		dst = appendElem(dst, "  ", "more", more)
	}
	if c != nil && (len(c.Changes) > 0 || c.More > 0) {
		dst = append(dst, "  <contract_awareness"...)
		if c.More > 0 {
			dst = append(dst, ` omitted="`...)
			dst = strconv.AppendInt(dst, int64(c.More), 10)
			dst = append(dst, '"')
		}
		dst = append(dst, ">\n"...)
		for _, ch := range c.Changes {
			dst = append(dst, `    <change severity="`...)
			dst = appendEscaped(dst, ch.Severity, inAttr)
			dst = append(dst, `" field="`...)
			dst = appendEscaped(dst, ch.Field, inAttr)
			if ch.Before != "" {
				dst = append(dst, `" before="`...)
				dst = appendEscaped(dst, ch.Before, inAttr)
			}
			if ch.After != "" {
				dst = append(dst, `" after="`...)
				dst = appendEscaped(dst, ch.After, inAttr)
			}
			dst = append(dst, `">`...)
			dst = appendEscaped(dst, ch.Description, inText)
			dst = append(dst, "</change>\n"...)
		}
		dst = append(dst, "  </contract_awareness>\n"...)
	}
	if recovery == "" {
		recovery = DefaultRecovery
	}
	dst = appendElem(dst, "  ", "recovery", recovery)
	return append(dst, "</validation_error>"...)
}

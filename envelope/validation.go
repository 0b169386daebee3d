package envelope

import (
	"strconv"

	"github.com/selfheal/selfheal/internal/xmlenc"
)

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
	// ServerMessage is what the tool's server itself answered, for a call
	// that was forwarded and rejected: the server may have failed for a
	// reason the fields do not explain. It is written as <server_message>
	// after More, as element text (newlines kept); omitted when empty. Its
	// length is the caller's to bound.
	ServerMessage string
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

// String returns the <validation_error> XML, laid out and escaped as
// [ToolError.String], with one allocation for typical envelopes.
//
// The formatter streams the same bytes into its own buffer through the same
// internal writer, so selfheal's Engine.Append writes validation errors into
// a caller's buffer without allocating.
func (v ValidationError) String() string {
	var buf [1024]byte // as ToolError.String: one allocation for typical envelopes
	return string(v.appendXML(buf[:0]))
}

// appendXML appends the <validation_error> XML to dst and returns the
// extended buffer. With enough capacity in dst it does not allocate.
func (v ValidationError) appendXML(dst []byte) []byte {
	dst = xmlenc.AppendValidationOpen(dst, v.Action)
	for _, f := range v.Fields {
		dst = xmlenc.AppendField(dst, f.Name, f.Text)
	}
	var section func([]byte) []byte
	if c := v.Contract; c != nil && (len(c.Changes) > 0 || c.More > 0) {
		section = c.appendXML
	}
	return xmlenc.AppendValidationEnd(dst, v.More, v.ServerMessage, section, v.Recovery)
}

// appendXML appends the <contract_awareness> section of a validation_error.
func (c *Contract) appendXML(dst []byte) []byte {
	dst = append(dst, "  <contract_awareness"...)
	if c.More > 0 {
		dst = append(dst, ` omitted="`...)
		dst = strconv.AppendInt(dst, int64(c.More), 10)
		dst = append(dst, '"')
	}
	dst = append(dst, ">\n"...)
	for _, ch := range c.Changes {
		dst = append(dst, `    <change severity="`...)
		dst = xmlenc.AppendAttr(dst, ch.Severity)
		dst = append(dst, `" field="`...)
		dst = xmlenc.AppendAttr(dst, ch.Field)
		if ch.Before != "" {
			dst = append(dst, `" before="`...)
			dst = xmlenc.AppendAttr(dst, ch.Before)
		}
		if ch.After != "" {
			dst = append(dst, `" after="`...)
			dst = xmlenc.AppendAttr(dst, ch.After)
		}
		dst = append(dst, `">`...)
		dst = xmlenc.AppendText(dst, ch.Description)
		dst = append(dst, "</change>\n"...)
	}
	return append(dst, "  </contract_awareness>\n"...)
}

package envelope

import (
	"slices"
	"strconv"
	"time"

	"github.com/selfheal/selfheal/internal/xmlenc"
)

// maxRetryAfter caps the retry_after section. Longer durations are written as
// this cap (86400 seconds): a model told to wait days would rather be told to
// give up, and the cap keeps absurd values such as 1e21 seconds off the wire.
const maxRetryAfter = 24 * time.Hour

// fineRetryAfter is the wait below which retry_after is written to the
// millisecond ("0.1 seconds" at ten calls a second); from it on, whole
// seconds are precise enough (rounding up adds under a tenth).
const fineRetryAfter = 10 * time.Second

// ToolError is the value form of a <tool_error> envelope: what a failed tool
// call returns to the model. Build one with a literal or with [Error]; both
// render the same bytes.
//
// ToolError implements error (Error gives the short "CODE: message" form for
// logs) and renders its XML with [ToolError.String].
// As with any error, fmt's %v and Println print Error, not the XML. Methods
// have value receivers, so ToolError and *ToolError both work as errors and
// [Wrap] recognizes either through wrapping.
type ToolError struct {
	Code     Code     // empty renders as INTERNAL_ERROR
	Severity Severity // empty or unknown renders as "error"
	Message  string   // always written, even when empty
	Recovery string   // what the model should do next; omitted when empty
	Actions  []string // tool actions the model may call instead; omitted when empty
	Details  []Detail // written in order; omitted when empty
	// RetryAfter is written in seconds, rounded up so that a model waiting
	// that long is never early: to the millisecond below 10 seconds ("0.1
	// seconds", "2.5 seconds"), to the second from there ("30 seconds"),
	// and capped at 24 hours (a model told to wait days would rather be
	// told to give up); zero or negative omits the section.
	RetryAfter time.Duration
}

// Detail is one key/value line of the <details> section, such as the ID the
// caller asked for. A slice keeps the order the server chose.
type Detail struct {
	Key, Value string
}

// Error returns the short form "CODE: message" (or just "CODE" when the
// message is empty), what a Go developer expects in a log line. Use
// [ToolError.String] for the XML the model reads.
func (e ToolError) Error() string {
	if e.Message == "" {
		return string(e.Code.orInternal())
	}
	return string(e.Code.orInternal()) + ": " + e.Message
}

// IsError reports whether the envelope means failure, the MCP result's
// isError flag: true unless the severity is warning.
func (e ToolError) IsError() bool { return e.Severity != SeverityWarning }

// String returns the <tool_error> XML, in exactly the layout of the design
// document: sections in a fixed order and omitted when empty, lines ending
// in \n, two-space indentation, no XML declaration and no newline after the
// closing tag. For typical envelopes it allocates once, for the string; the
// README's speed section has the figures.
//
// Every string in every slot goes through one escaper (internal/xmlenc), so
// any input gives well-formed XML with exactly the intended elements and
// attributes (fuzz-tested in package fuzz). Element text escapes & and <,
// and > only where it would close "]]>", so it stays readable; attributes
// also escape quotes and line ends. Characters XML 1.0 forbids never appear
// raw: C0 controls are shown as \u0000 to \u001f, invalid UTF-8 and the
// noncharacters U+FFFE and U+FFFF become U+FFFD. Rendering also normalizes
// a few values, such as an empty Code; [Parse] lists them, and everything
// else round-trips through Parse exactly.
func (e ToolError) String() string {
	var buf [1024]byte // typical envelopes render on the stack: one allocation, the string
	return string(e.appendXML(buf[:0]))
}

// brand marks ToolError as one of this package's envelopes, so that [Wrap]
// passes it through unchanged.
func (e ToolError) brand() ToolError { return e.clone() }

// clone returns e with copies of its slices, so that a caller who changes
// the copy changes nothing e's holder sees.
func (e ToolError) clone() ToolError {
	e.Actions = slices.Clone(e.Actions)
	e.Details = slices.Clone(e.Details)
	return e
}

// appendXML appends the <tool_error> XML to dst and returns the extended
// buffer. With enough capacity in dst it does not allocate.
func (e ToolError) appendXML(dst []byte) []byte {
	dst = append(dst, `<tool_error code="`...)
	dst = xmlenc.AppendAttr(dst, string(e.Code.orInternal()))
	dst = append(dst, `" severity="`...)
	dst = append(dst, e.Severity.norm()...)
	dst = append(dst, "\">\n"...)
	dst = xmlenc.AppendElem(dst, "  ", "message", e.Message)
	if e.Recovery != "" {
		dst = xmlenc.AppendElem(dst, "  ", "recovery", e.Recovery)
	}
	if len(e.Actions) > 0 {
		dst = append(dst, "  <available_actions>\n"...)
		for _, a := range e.Actions {
			dst = xmlenc.AppendElem(dst, "    ", "action", a)
		}
		dst = append(dst, "  </available_actions>\n"...)
	}
	if len(e.Details) > 0 {
		dst = append(dst, "  <details>\n"...)
		for _, d := range e.Details {
			dst = append(dst, `    <detail key="`...)
			dst = xmlenc.AppendAttr(dst, d.Key)
			dst = append(dst, `">`...)
			dst = xmlenc.AppendText(dst, d.Value)
			dst = append(dst, "</detail>\n"...)
		}
		dst = append(dst, "  </details>\n"...)
	}
	if ms := retryMillis(e.RetryAfter); ms > 0 {
		dst = append(dst, "  <retry_after>"...)
		dst = appendRetry(dst, ms)
		dst = append(dst, "</retry_after>\n"...)
	}
	return append(dst, "</tool_error>"...)
}

// appendRetry appends the text of a retry_after of ms milliseconds: "1
// second", "N seconds", with up to three decimals and no trailing zero.
func appendRetry(dst []byte, ms int64) []byte {
	dst = strconv.AppendInt(dst, ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		digits := [4]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
		n := len(digits)
		for digits[n-1] == '0' {
			n--
		}
		dst = append(dst, digits[:n]...)
	}
	if ms == 1000 {
		return append(dst, " second"...)
	}
	return append(dst, " seconds"...)
}

// retryMillis is d as retry_after writes it, in milliseconds: rounded up to
// the millisecond below fineRetryAfter, to the second from there, and
// capped; 0 omits the section.
func retryMillis(d time.Duration) int64 {
	switch {
	case d <= 0:
		return 0
	case d >= maxRetryAfter:
		return maxRetryAfter.Milliseconds()
	case d < fineRetryAfter:
		return int64((d + time.Millisecond - 1) / time.Millisecond)
	}
	return int64((d+time.Second-1)/time.Second) * 1000
}

package templates

import (
	"fmt"
	"slices"
	"strings"
)

// Placeholder names a value a template refers to, such as {sent} or
// {minimum}. The set is closed so that a template can be checked when it is
// registered rather than print garbage when it is used.
type Placeholder uint8

// The placeholders a template may use. What each renders is the formatter's
// business; the names are the contract between templates and catalogs.
const (
	none           Placeholder = iota
	Sent                       // the value sent, rendered (or "nothing" when absent)
	Received                   // the type of the value sent, as a phrase ("a string")
	Expected                   // the expected type, as a phrase ("an integer")
	Size                       // the size of the value sent, with its unit ("2 characters")
	Minimum                    // the lower bound, with its unit where it has one
	Maximum                    // the upper bound, with its unit where it has one
	Format                     // the format's label ("email", "UUID")
	FormatExpected             // what the format wants, as a phrase ("a valid email address")
	Example                    // the example clause (", e.g. 'user@example.com'"), or nothing
	Pattern                    // the pattern, prefix, suffix or substring
	Keys                       // the unrecognized keys
	Suggestion                 // the closest allowed key or value
	Allowed                    // the allowed keys or values, shortened
	Count                      // a count (alternatives, omitted issues, items in a unit)
	Divisor                    // the divisor of not_multiple_of
	Lower                      // the nearest valid value below
	Upper                      // the nearest valid value above
	CustomMessage              // a custom message, without a final period
	ElementKey                 // the key or index of invalid_key and invalid_element
	Inner                      // the line of an inner issue
	Unquoted                   // the number inside a quoted number, unquoted
	Value                      // the value inside an example or a sized value
	Field                      // the other field a check refers to, quoted, with its value when known
	Condition                  // the condition under which a requirement applies ("when 'mode' is 'on'")
	numPlaceholders
)

var placeholderNames = [numPlaceholders]string{
	none: "", Sent: "sent", Received: "received", Expected: "expected", Size: "size",
	Minimum: "minimum", Maximum: "maximum", Format: "format", FormatExpected: "format_expected",
	Example: "example", Pattern: "pattern", Keys: "keys", Suggestion: "suggestion",
	Allowed: "allowed", Count: "count", Divisor: "divisor", Lower: "lower", Upper: "upper",
	CustomMessage: "message", ElementKey: "key", Inner: "inner", Unquoted: "unquoted", Value: "value",
	Field: "field", Condition: "condition",
}

// String returns the placeholder's name, without braces.
func (p Placeholder) String() string {
	if p < numPlaceholders {
		return placeholderNames[p]
	}
	return fmt.Sprintf("Placeholder(%d)", uint8(p))
}

// LookupPlaceholder returns the placeholder with the given name.
func LookupPlaceholder(name string) (Placeholder, bool) {
	if i := slices.Index(placeholderNames[Sent:], name); i >= 0 {
		return Sent + Placeholder(i), true
	}
	return none, false
}

// Placeholders lists every placeholder name, for documentation and tooling.
func Placeholders() []string { return slices.Clone(placeholderNames[Sent:]) }

// Filler supplies the text of placeholders while a template renders. It
// appends to dst so that rendering a whole line allocates nothing.
type Filler interface {
	AppendPlaceholder(dst []byte, p Placeholder) []byte
}

// Template is a compiled template: literal text and placeholders, split once
// at compile time so that rendering is a loop of appends.
type Template struct {
	src  string
	segs []segment
	uses uint32 // bit p set when placeholder p appears
}

type segment struct {
	lit string
	ph  Placeholder
}

// Compile parses a template. Placeholders are written {name}; a literal brace
// is written twice ({{ or }}). An unknown placeholder or an unbalanced brace
// is an error, reported here rather than at render time.
func Compile(src string) (*Template, error) {
	t := &Template{src: src}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			t.segs = append(t.segs, segment{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch {
		case c == '{' && i+1 < len(src) && src[i+1] == '{':
			lit.WriteByte('{')
			i++
		case c == '}' && i+1 < len(src) && src[i+1] == '}':
			lit.WriteByte('}')
			i++
		case c == '{':
			end := strings.IndexByte(src[i+1:], '}')
			if end < 0 {
				return nil, fmt.Errorf("templates: unclosed { at byte %d of %q", i, src)
			}
			name := src[i+1 : i+1+end]
			p, ok := LookupPlaceholder(name)
			if !ok {
				return nil, fmt.Errorf("templates: unknown placeholder {%s} in %q (known: %s)", name, src, strings.Join(Placeholders(), ", "))
			}
			flush()
			t.segs = append(t.segs, segment{ph: p})
			t.uses |= 1 << p
			i += end + 1
		case c == '}':
			return nil, fmt.Errorf("templates: unmatched } at byte %d of %q (write }} for a literal brace)", i, src)
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	return t, nil
}

// Source returns the text the template was compiled from.
func (t *Template) Source() string { return t.src }

// Has reports whether the template refers to p. The formatter asks it to
// avoid saying a thing twice (a size after a value that already shows it).
func (t *Template) Has(p Placeholder) bool { return t.uses&(1<<p) != 0 }

// Uses lists the distinct placeholders the template refers to, in the order
// of the Placeholder constants, so that two templates can be compared.
func (t *Template) Uses() []Placeholder {
	var out []Placeholder
	for p := Sent; p < numPlaceholders; p++ {
		if t.Has(p) {
			out = append(out, p)
		}
	}
	return out
}

// Append renders the template into dst, asking f for each placeholder.
func (t *Template) Append(dst []byte, f Filler) []byte {
	for i := range t.segs {
		s := &t.segs[i]
		if s.ph == none {
			dst = append(dst, s.lit...)
		} else {
			dst = f.AppendPlaceholder(dst, s.ph)
		}
	}
	return dst
}

package templates

import (
	"fmt"
	"slices"
	"strings"
)

// Form is a CLDR plural category. Languages use different subsets: English
// has One and Other, Japanese only Other.
type Form uint8

// The CLDR plural categories. Other is the zero value because every language
// has it and it is the fallback for every other form.
const (
	Other Form = iota
	Zero
	One
	Two
	Few
	Many
	numForms
)

var formNames = [numForms]string{Other: "other", Zero: "zero", One: "one", Two: "two", Few: "few", Many: "many"}

// String returns the CLDR name of the form.
func (f Form) String() string {
	if f < numForms {
		return formNames[f]
	}
	return fmt.Sprintf("Form(%d)", uint8(f))
}

// ParseForm returns the form with the given CLDR name.
func ParseForm(name string) (Form, bool) {
	i := slices.Index(formNames[:], name)
	return Form(max(i, 0)), i >= 0
}

// Message is what a catalog holds for one key: a template per plural form,
// at least the Other form.
type Message struct {
	forms [numForms]*Template
}

// NewMessage compiles the forms of a message. Other is required; any form
// name outside CLDR's six, or any template error, is an error.
func NewMessage(forms map[string]string) (*Message, error) {
	m := &Message{}
	for name, src := range forms {
		f, ok := ParseForm(name)
		if !ok {
			return nil, fmt.Errorf("templates: unknown plural form %q (want zero, one, two, few, many or other)", name)
		}
		t, err := Compile(src)
		if err != nil {
			return nil, err
		}
		m.forms[f] = t
	}
	if m.forms[Other] == nil {
		return nil, fmt.Errorf("templates: plural message without an \"other\" form")
	}
	return m, nil
}

// Plural reports whether the message has forms other than Other, that is
// whether choosing a form is worth asking the language's plural rules.
func (m *Message) Plural() bool {
	for f := Zero; f < numForms; f++ {
		if m.forms[f] != nil {
			return true
		}
	}
	return false
}

// Single wraps one template as a message with no plural forms.
func Single(t *Template) *Message {
	m := &Message{}
	m.forms[Other] = t
	return m
}

// Template returns the template for form f, or the Other form when the
// message has no template for f.
func (m *Message) Template(f Form) *Template {
	if f < numForms && m.forms[f] != nil {
		return m.forms[f]
	}
	return m.forms[Other]
}

// Forms lists the forms the message defines, Other first.
func (m *Message) Forms() []Form {
	var out []Form
	for f := Other; f < numForms; f++ {
		if m.forms[f] != nil {
			out = append(out, f)
		}
	}
	return out
}

// Uses lists the placeholders used by any of the message's forms.
func (m *Message) Uses() []Placeholder {
	var all Template
	for _, t := range m.forms {
		if t != nil {
			all.uses |= t.uses
		}
	}
	return all.Uses()
}

// ID identifies a message: a dotted name of one to three parts, such as
// "invalid_type", "too_small.string.exact" or "format.email.label".
type ID [3]string

// ParseID splits a dotted key. Empty parts and more than three parts are
// errors.
func ParseID(s string) (ID, error) {
	var k ID
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		return k, fmt.Errorf("templates: key %q has more than three parts", s)
	}
	for i, p := range parts {
		if p == "" {
			return k, fmt.Errorf("templates: key %q has an empty part", s)
		}
		k[i] = p
	}
	return k, nil
}

// String returns the dotted form of the key.
func (k ID) String() string {
	s := k[0]
	for _, p := range k[1:] {
		if p != "" {
			s += "." + p
		}
	}
	return s
}

// Set is a collection of messages by key. A Set is built once and then only
// read, so it is safe for concurrent use.
type Set struct {
	m map[string]*Message // by the dotted key
}

// NewSet returns an empty set.
func NewSet() *Set { return &Set{m: make(map[string]*Message)} }

// Put adds or replaces a message.
func (s *Set) Put(k ID, m *Message) {
	s.m[k.String()] = m
}

// Get returns the message for the key parts a, b and c, or nil.
func (s *Set) Get(a, b, c string) *Message { return s.m[ID{a, b, c}.String()] }

// Keys lists the set's keys in sorted order.
func (s *Set) Keys() []ID {
	out := make([]ID, 0, len(s.m))
	for k := range s.m {
		id, _ := ParseID(k) // Put stored it from a valid ID
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b ID) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// Clone returns a copy that can be changed without touching s.
func (s *Set) Clone() *Set {
	c := NewSet()
	for k, m := range s.m {
		c.m[k] = m
	}
	return c
}

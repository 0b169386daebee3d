package validatorv10

import (
	"reflect"
	"strconv"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// seg is one step of a validator namespace: a field name, or the text
// between brackets of an element (an index or a map key).
type seg struct {
	text    string
	bracket bool
}

// splitNS splits a validator namespace ("User.addresses[0].city",
// "labels[a.b]") into its steps. A bracket ends at a "]" followed by the
// end, a "." or a "[", so map keys holding dots or brackets stay whole.
func splitNS(ns string, dst []seg) []seg {
	for i := 0; i < len(ns); {
		switch ns[i] {
		case '.':
			i++
		case '[':
			j := i + 1
			end := -1
			for k := j; k < len(ns); k++ {
				if ns[k] == ']' && (k+1 == len(ns) || ns[k+1] == '.' || ns[k+1] == '[') {
					end = k
					break
				}
			}
			if end < 0 {
				dst = append(dst, seg{text: ns[j:], bracket: true})
				return dst
			}
			dst = append(dst, seg{text: ns[j:end], bracket: true})
			i = end + 1
		default:
			j := i
			for j < len(ns) && ns[j] != '.' && ns[j] != '[' {
				j++
			}
			dst = append(dst, seg{text: ns[i:j]})
			i = j
		}
	}
	return dst
}

// dropTop removes the top-level struct name from a namespace's steps. A
// namespace from Struct starts with the type's name followed by a field;
// one from Var or VarWithKey starts with the key or a bracket. Without the
// validated value the rule is: a leading name followed by another name is
// the struct's.
func dropTop(segs []seg, root *rootInfo) []seg {
	if len(segs) == 0 || segs[0].bracket {
		return segs
	}
	if root != nil {
		if root.name != "" && segs[0].text == root.name && len(segs) > 1 {
			return segs[1:]
		}
		return segs
	}
	if len(segs) > 1 && !segs[1].bracket {
		return segs[1:]
	}
	return segs
}

// pathOf builds the issues.Path of a namespace without the validated value.
func (c *converter) pathOf(ns string) issues.Path {
	var buf [8]seg
	segs := dropTop(splitNS(ns, buf[:0]), nil)
	p := append(c.newPath(len(c.prefix)+len(segs)), c.prefix...)
	for _, s := range segs {
		p = append(p, step(s))
	}
	return p
}

// newPath returns an empty path with room for n elements, cut from one
// array for the paths of the conversion's issues rather than made for
// each: a slice per issue was 4 of the 8 allocations of
// BenchmarkValidator (c), and 682 instructions an operation. The cap ends
// at n, so that appending to one issue's path never writes into another's,
// and the root's path is empty, not nil.
func (c *converter) newPath(n int) issues.Path {
	if c.elems == nil || cap(c.elems)-len(c.elems) < n {
		c.elems = make([]any, 0, n*max(c.left, 1))
	}
	i := len(c.elems)
	c.elems = c.elems[:i+n]
	return c.elems[i : i : i+n]
}

// step is a namespace step as a path element: a bracket holding a decimal
// number is an index, other steps are keys.
func step(s seg) any {
	if s.bracket {
		if n, err := strconv.Atoi(s.text); err == nil && n >= 0 && (s.text == "0" || s.text[0] != '0') {
			return n
		}
	}
	return s.text
}

// rootInfo is the validated value, when the caller bound it (see Bind).
type rootInfo struct {
	v    reflect.Value
	name string // the struct type's name, as it leads namespaces
}

func newRoot(v any) *rootInfo {
	rv := deref(reflect.ValueOf(v))
	if !rv.IsValid() || rv.Kind() == reflect.Pointer || rv.Kind() == reflect.Interface {
		return nil // nil, or a nil pointer
	}
	r := &rootInfo{v: rv}
	if rv.Kind() == reflect.Struct {
		r.name = rv.Type().Name()
	}
	return r
}

// at is where one field error sits: its path, and when the value is bound
// (see Bind) what walking it along the namespace found.
type at struct {
	path      issues.Path
	bound     bool              // the fields below were found in the bound value
	parent    reflect.Value     // the struct holding the last named field
	parentAt  int               // how many path elements lead to parent
	container reflect.Value     // the map or slice of a final bracket step
	tag       reflect.StructTag // of the last named field
}

// walk follows the Go names of structNs through the bound value, naming
// each step as ns names it (JSON names when a tag-name function is set).
// It reports bound false where the value does not hold them.
func (c *converter) walk(ns, structNs string) at {
	r := c.root
	var b1, b2 [8]seg
	alt := dropTop(splitNS(ns, b1[:0]), r)
	gos := dropTop(splitNS(structNs, b2[:0]), r)
	if len(alt) != len(gos) {
		return at{}
	}
	w := at{path: append(c.newPath(len(c.prefix)+len(alt)), c.prefix...), bound: true}
	cur := r.v
	w.parent = cur
	w.parentAt = len(w.path)
	for i, s := range gos {
		cur = deref(cur)
		if !s.bracket {
			if cur.Kind() != reflect.Struct {
				return at{}
			}
			sf, ok := cur.Type().FieldByName(s.text)
			if !ok {
				return at{}
			}
			w.parent, w.parentAt = cur, len(w.path)
			w.tag = sf.Tag
			w.path = append(w.path, alt[i].text)
			cur = cur.FieldByIndex(sf.Index)
			continue
		}
		w.container = cur
		switch cur.Kind() {
		case reflect.Slice, reflect.Array:
			n, err := strconv.Atoi(s.text)
			if err != nil || n < 0 || n >= cur.Len() {
				return at{}
			}
			w.path = append(w.path, n)
			cur = cur.Index(n)
		case reflect.Map:
			w.path = append(w.path, alt[i].text)
			cur = mapIndex(cur, s.text)
		default:
			return at{}
		}
	}
	return w
}

func deref(v reflect.Value) reflect.Value {
	for v.IsValid() && (v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface) && !v.IsNil() {
		v = v.Elem()
	}
	return v
}

// mapIndex finds the value whose key prints as text (validator writes map
// keys with %v). Keys of string and integer types are looked up directly:
// walking the map for each failing key would cost quadratic time in a map
// a model filled; other keys are compared as they print.
func mapIndex(m reflect.Value, text string) reflect.Value {
	kt := m.Type().Key()
	var k reflect.Value
	switch kt.Kind() {
	case reflect.String:
		k = reflect.ValueOf(text).Convert(kt)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, _ := strconv.ParseInt(text, 10, 64)
		k = reflect.ValueOf(n).Convert(kt)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		n, _ := strconv.ParseUint(text, 10, 64)
		k = reflect.ValueOf(n).Convert(kt)
	default:
		for it := m.MapRange(); it.Next(); {
			if keyText(it.Key()) == text {
				return it.Value()
			}
		}
		return reflect.Value{}
	}
	if keyText(k) != text {
		return reflect.Value{} // not a number, or one the key type cannot hold
	}
	return m.MapIndex(k)
}

func keyText(k reflect.Value) string {
	k = deref(k)
	switch k.Kind() {
	case reflect.String:
		return k.String()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(k.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(k.Uint(), 10)
	}
	if k.IsValid() && k.CanInterface() {
		return fmtValue(k.Interface())
	}
	return ""
}

// jsonName is the name a field goes by in JSON: its json tag's name, or its
// Go name.
func jsonName(sf reflect.StructField) string {
	if tag, ok := sf.Tag.Lookup("json"); ok {
		name, _, _ := strings.Cut(tag, ",")
		if name != "" && name != "-" {
			return name
		}
	}
	return sf.Name
}

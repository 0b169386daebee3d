package jsondecode

import (
	"encoding"
	"encoding/base64"
	"encoding/json"
	"reflect"
	"slices"

	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// seg is one step of the path being walked: an object key (the key's node)
// or an array index. Paths are materialized only for issues, so the valid
// path allocates nothing for them.
type seg struct {
	key int // node index of the key, or -1 for an index
	idx int
}

// walker checks a parsed document against a Go type the way encoding/json
// would decode it, collecting every problem instead of stopping at the
// first.
type walker struct {
	document
	segs []seg
	list issues.List
	// opaque records an object or array reaching an interface: one that
	// already holds a pointer is decoded into by encoding/json, through a
	// type the walk never saw.
	opaque bool
	// omitted counts the issues found past issuesx.BuildLimit: the walk
	// goes on to count them, but builds none (no path, no value).
	omitted int
}

// room reports whether the list has room for another issue.
func (w *walker) room() bool {
	return len(w.list) < issuesx.BuildLimit
}

// path returns the current location as an issues.Path, nil at the root.
func (w *walker) path() issues.Path {
	if len(w.segs) == 0 {
		return nil
	}
	p := make(issues.Path, len(w.segs))
	for i, s := range w.segs {
		if s.key >= 0 {
			p[i] = w.str(s.key)
		} else {
			p[i] = s.idx
		}
	}
	return p
}

// add records is at the current path, with the value of node i as Input,
// or counts it past the limit.
func (w *walker) add(i int, is issues.Issue) {
	if !w.room() {
		w.omitted++
		return
	}
	is.Path = w.path()
	is.Input = w.value(i)
	w.list = append(w.list, is)
}

func (w *walker) typeIssue(i int, expected issues.Types) {
	w.add(i, issues.Issue{Code: issues.InvalidType, Expected: expected, Source: srcType})
}

// check walks the document's root, node i, against type t. The list holds
// at most issuesx.BuildLimit issues, then one issuesx.Omitted counting the
// others: 100,000 invalid items are read, and counted, but 1,000 built.
func (w *walker) check(i int, t reflect.Type) {
	w.visit(i, t)
	if w.omitted > 0 {
		w.list = append(w.list, issuesx.Omitted(w.omitted))
		w.omitted = 0
	}
}

// visit walks node i against type t.
func (w *walker) visit(i int, t reflect.Type) {
	ti := infoOf(t)
	n := &w.nodes[i]
	if n.kind == kNull {
		// encoding/json clears pointers, maps, slices and interfaces and
		// leaves other values alone on null; only an unmarshaler reached
		// through an address sees it.
		if !ti.ptr && (ti.cls == clsUnmarshaler || ti.cls == clsTime) {
			w.unmarshal(i, ti)
		}
		return
	}
	switch ti.cls {
	case clsAny:
		w.opaque = w.opaque || (t.Kind() == reflect.Interface && (n.kind == kObject || n.kind == kArray))
	case clsPtr:
		w.visit(i, ti.elem)
	case clsUnmarshaler, clsTime:
		w.unmarshal(i, ti)
	case clsText:
		if n.kind != kString {
			w.typeIssue(i, issues.TypeString)
			return
		}
		w.unmarshalText(i, ti)
	case clsBool:
		if n.kind != kTrue && n.kind != kFalse {
			w.typeIssue(i, issues.TypeBoolean)
		}
	case clsInt, clsUint, clsFloat:
		if n.kind != kNumber {
			w.typeIssue(i, ti.expected())
			return
		}
		if is, bad := numberIssue(string(w.raw(i)), ti); bad {
			w.add(i, is)
		}
	case clsString:
		if n.kind != kString {
			w.typeIssue(i, issues.TypeString)
		}
	case clsNumber:
		switch {
		case n.kind == kNumber:
		case n.kind == kString && issues.Number(w.text(i)).IsNumeric():
		default:
			w.typeIssue(i, issues.TypeNumber)
		}
	case clsBytes:
		switch n.kind {
		case kString:
			s := w.text(i)
			b := make([]byte, base64.StdEncoding.DecodedLen(len(s)))
			if _, err := base64.StdEncoding.Decode(b, s); err != nil {
				w.add(i, issues.Issue{Code: issues.InvalidFormat, Format: "base64", Source: srcFormat})
			}
		case kArray:
			w.elements(i, ti.elem, -1)
		default:
			w.typeIssue(i, issues.TypeString)
		}
	case clsSlice:
		if n.kind != kArray {
			w.typeIssue(i, issues.TypeArray)
			return
		}
		w.elements(i, ti.elem, -1)
	case clsArray:
		if n.kind != kArray {
			w.typeIssue(i, issues.TypeArray)
			return
		}
		w.elements(i, ti.elem, ti.length)
	case clsMap:
		if n.kind != kObject {
			w.typeIssue(i, issues.TypeObject)
			return
		}
		w.mapMembers(i, ti)
	case clsStruct:
		if n.kind != kObject {
			w.typeIssue(i, issues.TypeObject)
			return
		}
		w.structMembers(i, ti.st)
	}
}

// elements walks an array's elements; limit >= 0 stops there, as
// encoding/json skips the elements a Go array has no room for.
func (w *walker) elements(i int, elem reflect.Type, limit int) {
	k := 0
	for c := i + 1; c < w.nodes[i].next && k != limit; c = w.nodes[c].next {
		w.segs = append(w.segs, seg{key: -1, idx: k})
		w.visit(c, elem)
		w.segs = w.segs[:len(w.segs)-1]
		k++
	}
}

func (w *walker) structMembers(i int, si *structInfo) {
	at := -1 // where the unrecognized_keys issue goes: its first key's place
	var unknown []string
	for c := i + 1; c < w.nodes[i].next; c = w.nodes[c+1].next {
		key := w.text(c)
		f, ok := si.lookup(key)
		if !ok {
			if at < 0 {
				at = len(w.list)
			}
			// Past the limit the issue is counted, not built: its keys
			// are not kept.
			if at < issuesx.BuildLimit {
				unknown = append(unknown, string(key))
			}
			continue
		}
		w.segs = append(w.segs, seg{key: c})
		if f.quoted {
			w.quoted(c+1, f.typ)
		} else {
			w.visit(c+1, f.typ)
		}
		w.segs = w.segs[:len(w.segs)-1]
	}
	if at < 0 {
		return
	}
	if at >= issuesx.BuildLimit {
		w.omitted++
		return
	}
	if !w.room() {
		// Full since its first key: the issue still goes in its place,
		// and the last one built goes out, counted.
		clear(w.list[len(w.list)-1:])
		w.list = w.list[:len(w.list)-1]
		w.omitted++
	}
	slices.Sort(unknown)
	w.list = slices.Insert(w.list, at, issues.Issue{
		Code:    issues.UnrecognizedKeys,
		Path:    w.path(),
		Input:   w.value(i),
		Keys:    slices.Compact(unknown),
		Allowed: slices.Clone(si.allowed),
		Source:  srcUnknownField,
	})
}

func (w *walker) mapMembers(i int, ti *typeInfo) {
	kti := &typeInfo{cls: clsInt, bits: ti.bits}
	if ti.key == keyUint {
		kti.cls = clsUint
	}
	for c := i + 1; c < w.nodes[i].next; c = w.nodes[c+1].next {
		var inner issues.Issue
		bad := false
		switch ti.key {
		case keyInt, keyUint:
			key := w.str(c)
			if inner, bad = numberIssue(key, kti); bad && inner.Code == issues.InvalidType {
				// A key is always a string; what is wrong is its content.
				inner = issues.Issue{Code: issues.InvalidFormat, Format: "integer", Source: srcFormat}
			}
		case keyText:
			u, ok := reflect.New(ti.keyType).Interface().(encoding.TextUnmarshaler)
			if ok {
				if err := u.UnmarshalText(w.text(c)); err != nil {
					inner = issues.Issue{Code: issues.Custom, Message: err.Error(), Source: srcUnmarshaler}
					bad = true
				}
			}
		}
		if bad && !w.room() {
			w.omitted++
		} else if bad {
			key := w.str(c)
			inner.Input = key
			w.list = append(w.list, issues.Issue{
				Code: issues.InvalidKey, Path: w.path(), Input: key, Key: key,
				Origin: issues.OriginMap, Issues: []issues.Issue{inner}, Source: srcKey,
			})
		}
		w.segs = append(w.segs, seg{key: c})
		w.visit(c+1, ti.elem)
		w.segs = w.segs[:len(w.segs)-1]
	}
}

// quoted checks a field with the ",string" option: encoding/json wants a
// JSON string holding the literal (`"42"`, `"true"`, `"\"text\""`) or null.
func (w *walker) quoted(i int, t reflect.Type) {
	n := &w.nodes[i]
	if n.kind == kNull {
		return
	}
	if n.kind != kString {
		w.typeIssue(i, issues.TypeString)
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	ti := infoOf(t)
	s := w.text(i)
	if len(s) == 4 && string(s) == "null" {
		return
	}
	format := ""
	switch ti.cls {
	case clsBool:
		if string(s) != "true" && string(s) != "false" {
			format = "boolean"
		}
	case clsInt, clsUint, clsFloat:
		if len(s) == 0 || (s[0] != '-' && (s[0] < '0' || s[0] > '9')) {
			format = ti.expected().String()
			break
		}
		is, bad := numberIssue(string(s), ti)
		if !bad {
			return
		}
		if is.Code == issues.InvalidType || is.Code == issues.InvalidFormat {
			format = ti.expected().String()
			break
		}
		w.add(i, is)
		return
	case clsString:
		if len(s) < 2 || s[0] != '"' || s[len(s)-1] != '"' || !json.Valid(s) {
			format = "json_string"
		}
	default:
		// Types with their own unmarshalers, and json.Number, follow
		// rules too odd to restate here; encoding/json settles them.
		return
	}
	if format != "" {
		w.add(i, issues.Issue{Code: issues.InvalidFormat, Format: format, Source: srcFormat})
	}
}

// unmarshal runs a json.Unmarshaler on the value's own bytes, as
// encoding/json will, and reports its failure.
func (w *walker) unmarshal(i int, ti *typeInfo) {
	u, ok := reflect.New(ti.base).Interface().(json.Unmarshaler)
	if !ok {
		return
	}
	err := u.UnmarshalJSON(w.raw(i))
	if err == nil {
		return
	}
	if ti.cls == clsTime {
		if w.nodes[i].kind == kString {
			w.add(i, issues.Issue{Code: issues.InvalidFormat, Format: "date-time", Source: srcFormat})
		} else {
			w.typeIssue(i, issues.TypeString)
		}
		return
	}
	w.unmarshalerFailed(i, err)
}

func (w *walker) unmarshalText(i int, ti *typeInfo) {
	u, ok := reflect.New(ti.base).Interface().(encoding.TextUnmarshaler)
	if !ok {
		return
	}
	if err := u.UnmarshalText(w.text(i)); err != nil {
		w.unmarshalerFailed(i, err)
	}
}

// unmarshalerFailed reports a type's own unmarshaler error. Issues it
// returns (an issues.List, or an encoding/json error of its own decoding)
// are kept, under the current path; any other error becomes a custom issue
// carrying the error's text, the only account of what the type expects.
func (w *walker) unmarshalerFailed(i int, err error) {
	if list, ok := Issues(err); ok && list[0].Source != srcSyntax && list[0].Source != srcTrailing {
		var base issues.Path // the current path, made for the first issue kept
		based := false
		for _, is := range list {
			// The type's own list may be capped already: its count joins
			// this one's, and its issues count against this limit.
			if n := issuesx.OmittedCount(&is); n > 0 {
				w.omitted += n
				continue
			}
			if !w.room() {
				w.omitted++
				continue
			}
			if !based {
				base, based = w.path(), true
			}
			if len(base) > 0 {
				is.Path = base.Append(is.Path...)
			}
			w.list = append(w.list, is)
		}
		return
	}
	if !w.room() {
		w.omitted++
		return
	}
	w.add(i, issues.Issue{Code: issues.Custom, Message: err.Error(), Source: srcUnmarshaler})
}

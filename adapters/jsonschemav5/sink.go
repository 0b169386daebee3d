package jsonschemav5

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"
	"github.com/selfheal/selfheal/issues"
)

// sink collects one list of issues, merging what version 5 reports piece by
// piece: unrecognized keys and excess items into one issue per object or
// array, the failures of one property name into one invalid_key, the
// failures inside one string's content into one content issue.
type sink struct {
	out     []issues.Issue
	keys    map[string]int   // path → index of the unrecognized_keys issue
	items   map[string]*tail // path → array items that may not be sent
	nested  map[string]*nest // path (+ name) → inner issues of a key or content
	ordered []*nest
}

type tail struct {
	path  issues.Path
	arr   []any
	index []int
	pos   int
}

type nest struct {
	pos     int
	path    issues.Path
	input   any
	name    string
	content bool
	inner   sink
}

func (k *sink) nestSink(id string, n *nest) *sink {
	if old, ok := k.nested[id]; ok {
		return &old.inner
	}
	if k.nested == nil {
		k.nested = map[string]*nest{}
	}
	n.pos = len(k.out)
	k.out = append(k.out, issues.Issue{})
	k.nested[id] = n
	k.ordered = append(k.ordered, n)
	return &n.inner
}

// keySink returns the sink of the issues of property name name of the
// object at path.
func (k *sink) keySink(path issues.Path, obj any, name string) *sink {
	return k.nestSink("k"+path.String()+"\x00"+name, &nest{path: path, input: obj, name: name})
}

// contentSink returns the sink of the issues inside the string at path.
func (k *sink) contentSink(path issues.Path, str any) *sink {
	return k.nestSink("c"+path.String(), &nest{path: path, input: str, content: true})
}

func (k *sink) finish() issues.List {
	for _, n := range k.ordered {
		inner := n.inner.finish()
		switch {
		case n.content:
			k.out[n.pos] = issues.Issue{Code: issues.Custom, Check: issues.CheckContent, Path: n.path,
				Input: n.input, Issues: inner, Source: "jsonschema:contentSchema"}
		case len(inner) == 1 && inner[0].Check == issues.CheckNever && len(inner[0].Path) == 0:
			k.unrecognized(n.path, n.input, n.name, nil, "jsonschema:propertyNames")
		default:
			k.out[n.pos] = issues.Issue{Code: issues.InvalidKey, Path: n.path, Input: n.name, Key: n.name,
				Origin: issues.OriginObject, Issues: inner, Source: "jsonschema:propertyNames"}
		}
	}
	for _, t := range k.items {
		slices.Sort(t.index)
		first := t.index[0]
		contiguous := t.index[len(t.index)-1] == len(t.arr)-1 && len(t.index) == len(t.arr)-first
		src := k.out[t.pos].Source
		if contiguous {
			k.out[t.pos] = issues.Issue{Code: issues.TooBig, Path: t.path, Input: t.arr,
				Origin: issues.OriginArray, Maximum: issues.Number(strconv.Itoa(first)), Inclusive: true, Source: src}
			continue
		}
		k.out[t.pos].Code = ""
		for _, i := range t.index {
			k.out = append(k.out, issues.Issue{Code: issues.Custom, Check: issues.CheckNever,
				Path: t.path.Append(i), Input: t.arr[i], Source: src})
		}
	}
	out := k.out[:0]
	for _, is := range k.out {
		if is.Code == issues.UnrecognizedKeys && len(is.Allowed) > 0 {
			// A name declared only in a branch that did not apply is
			// not allowed after all.
			is.Allowed = slices.DeleteFunc(slices.Clone(is.Allowed), func(a string) bool {
				return slices.Contains(is.Keys, a)
			})
			if len(is.Allowed) == 0 {
				is.Allowed = nil
			}
		}
		if is.Code != "" {
			out = append(out, is)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return issues.List(out)
}

// unrecognized adds key to the unrecognized_keys issue of the object at path.
func (k *sink) unrecognized(path issues.Path, obj any, key string, allowed []string, source string) {
	id := path.String()
	if i, ok := k.keys[id]; ok {
		if !slices.Contains(k.out[i].Keys, key) {
			k.out[i].Keys = append(k.out[i].Keys, key)
			slices.Sort(k.out[i].Keys)
		}
		return
	}
	if k.keys == nil {
		k.keys = map[string]int{}
	}
	k.keys[id] = len(k.out)
	k.out = append(k.out, issues.Issue{Code: issues.UnrecognizedKeys, Path: path, Input: obj,
		Keys: []string{key}, Allowed: allowed, Source: source})
}

// excessItem records that item index of the array at path may not be sent.
func (k *sink) excessItem(path issues.Path, arr []any, index int, source string) {
	id := path.String()
	t, ok := k.items[id]
	if !ok {
		if k.items == nil {
			k.items = map[string]*tail{}
		}
		t = &tail{path: path, arr: arr, pos: len(k.out)}
		k.items[id] = t
		k.out = append(k.out, issues.Issue{Code: issues.TooBig, Source: source})
	}
	if !slices.Contains(t.index, index) {
		t.index = append(t.index, index)
	}
}

// fragment returns the JSON pointer tokens of a location's fragment.
func fragment(loc string) []string {
	_, frag, ok := strings.Cut(loc, "#")
	if !ok || frag == "" {
		return nil
	}
	return pointer(frag)
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	case json.Number:
		if _, err := x.Int64(); err == nil {
			return "integer"
		}
	}
	return "number"
}

func numText(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return fmt.Sprint(v)
}

// mediaFormat names the format a content media type asks for, in the
// formatter's format names where it has one.
func mediaFormat(mt string) string {
	if mt == "application/json" {
		return "json"
	}
	return mt
}

// decodeContent decodes the content of a string the way contentEncoding
// describes it, for locating the issues inside it.
func decodeContent(v any, sch *jsonschema.Schema) any {
	str, ok := v.(string)
	if !ok {
		return nil
	}
	data := []byte(str)
	if (sch != nil && sch.ContentEncoding == "base64") || (sch == nil && !json.Valid(data)) {
		if d, err := base64.StdEncoding.DecodeString(str); err == nil {
			data = d
		}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	if dec.Decode(&out) != nil {
		return nil
	}
	return out
}

// ratText writes r as the shortest exact decimal.
func ratText(r *big.Rat) issues.Number {
	if r == nil {
		return ""
	}
	if r.IsInt() {
		return issues.Number(r.Num().String())
	}
	for prec := 1; prec <= 1100; prec++ {
		s := r.FloatString(prec)
		if back, ok := new(big.Rat).SetString(s); ok && back.Cmp(r) == 0 {
			return issues.Number(s)
		}
	}
	return issues.Number(r.FloatString(20))
}

// unescapeFrag percent-decodes a fragment.
func unescapeFrag(f string) string {
	if u, err := url.PathUnescape(f); err == nil {
		return u
	}
	return f
}

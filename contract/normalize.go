package contract

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Limits that keep normalization bounded whatever the schema holds.
const (
	// maxExpansions caps how many local $ref are inlined in one schema. A
	// schema that nests references exponentially keeps its remaining $ref
	// (and its $defs) instead of growing without bound.
	maxExpansions = 256
	// maxDepth caps how deep normalization and diffing descend. JSON deeper
	// than this is compared as a whole.
	maxDepth = 200
)

// encode writes v as compact JSON: object keys sorted (encoding/json sorts
// map keys), no HTML escaping, no trailing newline. It is the canonical form
// digests are computed over.
func encode(v any) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Trees here come from jsonvalue.DecodeLocated and hold only JSON values, with
		// numbers canonical or kept as valid literals.
		panic("contract: encoding a decoded JSON tree: " + err.Error())
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// canonicalNumber writes a JSON number in one form per value: integers that
// fit in 64 bits exactly (-0 is 0), every other finite number as
// encoding/json writes the float64 it decodes to (1.0 is 1, 1E2 is 100,
// 1e21 is 1e+21). A literal too large for a float64 is kept as written.
func canonicalNumber(n json.Number) json.Number {
	s := string(n)
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return json.Number(strconv.FormatInt(i, 10))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return n
	}
	if f == 0 {
		return "0"
	}
	b, err := json.Marshal(f)
	if err != nil {
		return n
	}
	return json.Number(b)
}

// canonicalValue returns v with every number canonical; it does not treat v
// as a schema (enum values, defaults, examples and the like).
func canonicalValue(v any, depth int) any {
	switch v := v.(type) {
	case json.Number:
		return canonicalNumber(v)
	case map[string]any:
		if depth > maxDepth {
			return v
		}
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = canonicalValue(e, depth+1)
		}
		return out
	case []any:
		if depth > maxDepth {
			return v
		}
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = canonicalValue(e, depth+1)
		}
		return out
	}
	return v
}

// Keyword families of JSON Schema (drafts 4 to 2020-12), by where their
// value holds subschemas.
var (
	// one subschema
	schemaKeywords = set("items", "additionalItems", "unevaluatedItems", "contains",
		"additionalProperties", "unevaluatedProperties", "propertyNames",
		"not", "if", "then", "else", "contentSchema")
	// an array of subschemas
	schemaListKeywords = set("allOf", "anyOf", "oneOf", "prefixItems", "items")
	// an object whose values are subschemas
	schemaMapKeywords = set("properties", "patternProperties", "$defs", "definitions",
		"dependentSchemas", "dependencies")
	// annotations a $ref may carry beside it without changing what it accepts
	annotationKeywords = set("title", "description", "default", "examples", "deprecated",
		"readOnly", "writeOnly", "$comment")
)

func set(names ...string) map[string]bool {
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}

// normalizer turns one schema into its compared form.
type normalizer struct {
	root       any      // the schema as written, where local $ref are looked up
	inline     bool     // whether to inline references at all
	stack      []string // the $ref being inlined, outermost first
	expansions int
	exhausted  bool            // the expansion budget ran out
	unresolved bool            // some $ref stayed in place
	recursive  map[string]bool // memo: the $ref that reach themselves
}

// normalizeSchema returns the compared form of a schema: numbers canonical,
// "required" sorted and without duplicates, "type" sorted (one type written
// as a string), and local $ref ("#" followed by a JSON pointer) replaced by
// the schema they point to when that is safe: the $ref has nothing beside it
// but annotations (which then override the target's), it does not refer to
// itself through a chain of references, and the expansion budget is not
// spent. When every reference was inlined, the root's $defs and definitions
// are dropped: nothing refers to them any more. Object keys come out sorted
// when the tree is encoded.
//
// Normalization is idempotent, so that a stored schema normalizes to itself:
// a reference that reaches itself (directly or through others) is never
// inlined, and when the budget runs out no reference is inlined at all.
func normalizeSchema(raw any) any {
	n := &normalizer{root: raw, inline: true, recursive: map[string]bool{}}
	out := n.schema(raw, 0)
	if n.exhausted {
		n = &normalizer{root: raw}
		out = n.schema(raw, 0)
	}
	if m, ok := out.(map[string]any); ok && !n.unresolved {
		delete(m, "$defs")
		delete(m, "definitions")
	}
	return out
}

func (n *normalizer) schema(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > maxDepth {
		return canonicalValue(v, depth)
	}
	if ref, ok := m["$ref"].(string); ok {
		if out, ok := n.resolve(m, ref, depth); ok {
			return out
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys) // a deterministic order for the expansion budget
	out := make(map[string]any, len(m))
	for _, k := range keys {
		e := m[k]
		switch {
		case k == "required":
			out[k] = sortedStrings(e)
		case k == "type":
			out[k] = normalType(e)
		case schemaListKeywords[k] && isArray(e):
			list := e.([]any)
			sub := make([]any, len(list))
			for i, s := range list {
				sub[i] = n.schema(s, depth+1)
			}
			out[k] = sub
		case schemaKeywords[k]:
			out[k] = n.schema(e, depth+1)
		case schemaMapKeywords[k] && isObject(e):
			sub := make(map[string]any, len(e.(map[string]any)))
			for _, name := range sortedKeys(e.(map[string]any)) {
				s := e.(map[string]any)[name]
				if k == "dependencies" && isArray(s) {
					sub[name] = canonicalValue(s, depth+2) // draft 4-7: a list of property names
				} else {
					sub[name] = n.schema(s, depth+2)
				}
			}
			out[k] = sub
		default:
			out[k] = canonicalValue(e, depth+1)
		}
	}
	return out
}

// resolve inlines a local $ref; ok is false when it stays in place.
func (n *normalizer) resolve(m map[string]any, ref string, depth int) (any, bool) {
	fragment, local := strings.CutPrefix(ref, "#")
	if !local {
		return nil, false // a remote or $id-relative reference: kept as written
	}
	keep := func() (any, bool) { n.unresolved = true; return nil, false }
	for k := range m {
		if k != "$ref" && !annotationKeywords[k] {
			return keep() // siblings that validate: draft-dependent meaning
		}
	}
	if !n.inline || slices.Contains(n.stack, ref) {
		return keep()
	}
	if n.expansions >= maxExpansions {
		n.exhausted = true
		return keep()
	}
	target, ok := lookup(n.root, fragment)
	if !ok || n.isRecursive(ref) {
		return keep()
	}
	n.expansions++
	n.stack = append(n.stack, ref)
	resolved := n.schema(target, depth+1)
	n.stack = n.stack[:len(n.stack)-1]

	var base map[string]any
	switch r := resolved.(type) {
	case map[string]any:
		base = make(map[string]any, len(r)+len(m))
		for k, v := range r {
			base[k] = v
		}
	case bool:
		if !r {
			return false, true // nothing is valid; annotations change nothing
		}
		base = make(map[string]any, len(m))
	default:
		return keep() // not a schema
	}
	for k, v := range m {
		if k != "$ref" {
			base[k] = canonicalValue(v, depth+1)
		}
	}
	return base, true
}

// lookup follows a URI-fragment JSON pointer ("/$defs/Item") from root.
func lookup(root any, fragment string) (any, bool) {
	ptr, err := url.PathUnescape(fragment)
	if err != nil {
		return nil, false
	}
	if ptr == "" {
		return root, true
	}
	if !strings.HasPrefix(ptr, "/") {
		return nil, false // an anchor such as #item
	}
	cur := root
	for tok := range strings.SplitSeq(ptr[1:], "/") {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[tok]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(c) || (len(tok) > 1 && tok[0] == '0') {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// sortedStrings sorts and deduplicates a list of strings ("required");
// anything else is returned canonical but otherwise as written.
func sortedStrings(v any) any {
	list, ok := v.([]any)
	if !ok {
		return canonicalValue(v, 0)
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return canonicalValue(v, 0)
		}
		out = append(out, s)
	}
	slices.Sort(out)
	out = slices.Compact(out)
	res := make([]any, len(out))
	for i, s := range out {
		res[i] = s
	}
	return res
}

// normalType sorts and deduplicates a list of type names and writes a list
// of one as that one name.
func normalType(v any) any {
	list, ok := sortedStrings(v).([]any)
	if !ok {
		return v
	}
	if len(list) == 1 {
		return list[0]
	}
	return list
}

func isArray(v any) bool  { _, ok := v.([]any); return ok }
func isObject(v any) bool { _, ok := v.(map[string]any); return ok }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// isRecursive reports whether a local reference reaches itself through the
// references inside its target.
func (n *normalizer) isRecursive(ref string) bool {
	if r, ok := n.recursive[ref]; ok {
		return r
	}
	seen := map[string]bool{}
	todo := []string{ref}
	found := false
	for len(todo) > 0 && !found {
		cur := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		target, ok := lookup(n.root, strings.TrimPrefix(cur, "#"))
		if !ok {
			continue
		}
		refsIn(target, 0, func(r string) {
			if r == ref {
				found = true
			}
			if !seen[r] && strings.HasPrefix(r, "#") {
				seen[r] = true
				todo = append(todo, r)
			}
		})
	}
	n.recursive[ref] = found
	return found
}

// refsIn calls f with every "$ref" string in v.
func refsIn(v any, depth int, f func(string)) {
	if depth > maxDepth {
		return
	}
	switch v := v.(type) {
	case map[string]any:
		if r, ok := v["$ref"].(string); ok {
			f(r)
		}
		for _, e := range v {
			refsIn(e, depth+1, f)
		}
	case []any:
		for _, e := range v {
			refsIn(e, depth+1, f)
		}
	}
}

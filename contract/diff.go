package contract

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/selfheal/selfheal/internal/jsonvalue"
)

// Severity classifies a change by what it does to a client of the old
// contract. The zero value is not a severity.
type Severity int

// Severities, from the least to the most severe.
const (
	// Cosmetic changes nothing a validator checks or a call means:
	// descriptions, titles, examples, order of values, unknown keywords.
	Cosmetic Severity = iota + 1
	// Safe keeps every call that was valid valid, with the same meaning:
	// something was added or loosened.
	Safe
	// Risky keeps valid calls valid but may change what they mean or
	// admits values the old contract had ruled out as a class (see
	// [Diff]).
	Risky
	// Breaking can make a call that was valid invalid (or, for the output
	// schema, a result a client relied on different).
	Breaking
)

var severityNames = [...]string{Cosmetic: "COSMETIC", Safe: "SAFE", Risky: "RISKY", Breaking: "BREAKING"}

// String returns BREAKING, RISKY, SAFE or COSMETIC.
func (s Severity) String() string {
	if s >= Cosmetic && s <= Breaking {
		return severityNames[s]
	}
	return "Severity(" + strconv.Itoa(int(s)) + ")"
}

// MarshalText writes the String form.
func (s Severity) MarshalText() ([]byte, error) {
	if s < Cosmetic || s > Breaking {
		return nil, fmt.Errorf("contract: invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads the String form, in any letter case.
func (s *Severity) UnmarshalText(text []byte) error {
	for v := Cosmetic; v <= Breaking; v++ {
		if strings.EqualFold(string(text), severityNames[v]) {
			*s = v
			return nil
		}
	}
	return fmt.Errorf("contract: unknown severity %q (want BREAKING, RISKY, SAFE or COSMETIC)", text)
}

// Change is one difference between two contracts.
type Change struct {
	Severity Severity `json:"severity"`
	// Tool is the tool's name.
	Tool string `json:"tool"`
	// Field is where the change is, written like the field names of a
	// validation_error so that a model matches the two: "amount",
	// "items[*].sku" (any element of items), "labels[*]" (any property not
	// listed), `meta["a.b"]` (a key that is not an identifier), "(root)" for
	// the arguments as a whole, "(output)" and "(output).total" for the
	// structured result, "(tool)" for the tool itself. The keyword that
	// changed is named in Description and located by Location.
	Field string `json:"field"`
	// Description says what changed, in one English line for a model:
	// "Minimum raised from 0 to 1".
	Description string `json:"description"`
	// Before and After are the old and new values of what changed, as
	// compact JSON text; empty when there is none (a keyword added or
	// removed, a tool added or removed).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	// Location is a JSON pointer into the tool's entry of the lockfile:
	// "/inputSchema/properties/amount/minimum"; empty for the whole tool.
	Location string `json:"location"`
}

// String returns the change on one line:
//
//	BREAKING billing.pay amount: Minimum raised from 0 to 1
func (c Change) String() string {
	return c.Severity.String() + " " + c.Tool + " " + c.Field + ": " + c.Description
}

// Diff compares two snapshots of the same server and returns every change
// from old to new, most severe first, then by tool, field and location.
// Nil locks are empty.
//
// Diff classifies each change by what it does to the values a schema
// accepts. For the input schema, where the client sends values:
//
//   - BREAKING: a call that was valid may now be rejected. A tool removed; a
//     property removed (even where unknown properties are still accepted,
//     the server no longer reads it); a property newly required, or added
//     as required; a type narrowed or changed; an enum value removed; an
//     enum or const added or a const changed; a bound tightened (minimum or
//     exclusiveMinimum raised, maximum or exclusiveMaximum lowered, the same
//     for minLength/maxLength, minItems/maxItems, minProperties/
//     maxProperties, minContains/maxContains), or added; multipleOf added,
//     or changed to a value that is not a divisor of the old one; a pattern
//     or format added or changed; uniqueItems required; additionalProperties
//     closed or constrained; an anyOf or oneOf alternative removed, an allOf
//     member added; a keyword this package does not analyse (not, if,
//     dependentRequired, patternProperties, a remaining $ref …) added or
//     changed.
//   - RISKY: valid calls stay valid but may mean something else. A default
//     added, changed or removed (a call that omits the field behaves
//     differently); a property deprecated; the $schema dialect changed; a
//     oneOf alternative added (a value that matches two alternatives becomes
//     invalid); and a loosening that admits a class of values the old
//     schema ruled out entirely — see below.
//   - SAFE: every valid call stays valid, with the same meaning. A tool
//     added; an optional property added; a property no longer required; a
//     type widened; an enum value added; a bound loosened or removed;
//     multipleOf changed to a divisor of the old one, or removed; a pattern
//     or format removed; additionalProperties opened; an anyOf alternative
//     added, an allOf member removed.
//   - COSMETIC: nothing a validator checks changed. Descriptions (of the
//     tool and of every property, required or not), titles, examples,
//     $comment, readOnly/writeOnly, unknown keywords (x-…), the order of
//     enum values, and spellings that accept the same values
//     (["integer","number"] and "number").
//
// The rule for loosenings that change meaning: a loosened bound is SAFE
// unless it lets in a class of values the old schema ruled out entirely and
// that commonly carries a meaning of its own — zero, negative or positive
// numbers (a lower bound crossing 0: an amount that may now be 0 or
// negative, read as "free" or "refund"), empty strings, arrays or objects
// (minLength, minItems or minProperties dropping to 0: "" or [] read as
// "none" or "all"), or null (a type widened to include it). Those are RISKY.
// Each bound answers for its own change: removing a maximum from a money
// field that keeps its minimum admits only larger amounts of the same kind,
// which is SAFE; raising a maximum from -1 to 5 admits zero and positives,
// which is RISKY.
//
// Descriptions are COSMETIC even on required properties: most rewrites are
// wording, and a RISKY description change would crowd the few changes a
// validation error has room for. A change of meaning the schema can express
// (a renamed property, a new format, new bounds) is caught as such.
//
// For the output schema, where the client receives values, the same
// analysis is read the other way: a narrowing promises more (SAFE), a
// widening may hand the client values it never handled (RISKY), an
// incompatible change breaks it (BREAKING). A property no longer returned,
// or no longer always returned, is BREAKING (RISKY when it was optional
// anyway); the output schema removed is BREAKING, added is SAFE.
//
// Combinators are matched by structure, not by position: identical
// alternatives first, then alternatives with the same "type", in order;
// matched pairs are compared keyword by keyword ("In alternative 2 of anyOf:
// Maximum length lowered from 5 to 3"); the rest were removed or added.
// Nested objects, array items ("items[*].sku"), tuple positions ("pt[0]"),
// additional-property values ("labels[*]") and definitions kept for
// recursive references ("$defs.Node.v") are compared recursively.
func Diff(old, new *Lock) []Change {
	var out []Change
	var oldTools, newTools []Tool
	if old != nil {
		oldTools = old.Tools
	}
	if new != nil {
		newTools = new.Tools
	}
	byName := make(map[string]*Tool, len(newTools))
	for i := range newTools {
		byName[newTools[i].Name] = &newTools[i]
	}
	seen := make(map[string]bool, len(oldTools))
	for i := range oldTools {
		o := &oldTools[i]
		seen[o.Name] = true
		n := byName[o.Name]
		if n == nil {
			out = append(out, Change{Severity: Breaking, Tool: o.Name, Field: "(tool)", Description: "Tool removed"})
			continue
		}
		out = diffTool(out, o, n)
	}
	for i := range newTools {
		if n := &newTools[i]; !seen[n.Name] {
			out = append(out, Change{Severity: Safe, Tool: n.Name, Field: "(tool)", Description: "Tool added"})
		}
	}
	sortChanges(out)
	return out
}

func sortChanges(cs []Change) {
	slices.SortStableFunc(cs, func(a, b Change) int {
		return cmp.Or(
			cmp.Compare(b.Severity, a.Severity),
			strings.Compare(a.Tool, b.Tool),
			strings.Compare(a.Field, b.Field),
			strings.Compare(a.Location, b.Location),
			strings.Compare(a.Description, b.Description),
			strings.Compare(a.Before, b.Before),
			strings.Compare(a.After, b.After),
		)
	})
}

// ForTool returns the BREAKING and RISKY changes of the tool with exactly
// this name (no substring or prefix match), in the order of changes, at
// most max of them (max <= 0: all), and how many more there were. It is what
// a validation_error's contract_awareness section shows for a failed call.
//
// This package imports only the standard library and the module's internal
// JSON decoder, not envelope, so an MCP integration does the conversion: it
// turns each kept [Change] into an envelope.ContractChange (Severity.String(),
// Field, Description, Before, After) and omitted into Contract.More.
func ForTool(changes []Change, tool string, max int) (kept []Change, omitted int) {
	for _, c := range changes {
		if c.Tool != tool || c.Severity < Risky {
			continue
		}
		if max > 0 && len(kept) >= max {
			omitted++
			continue
		}
		kept = append(kept, c)
	}
	return kept, omitted
}

// Worst returns the highest severity among changes, or 0 when there are
// none; `Worst(changes) == Breaking` is what a CI gate checks.
func Worst(changes []Change) Severity {
	var w Severity
	for _, c := range changes {
		w = max(w, c.Severity)
	}
	return w
}

func diffTool(out []Change, o, n *Tool) []Change {
	if o.Digest != "" && o.Digest == n.Digest {
		return out
	}
	d := &differ{tool: o.Name, out: out}
	if o.Description != n.Description {
		d.add(Cosmetic, "(tool)", "/description", "Tool description changed", jsonText(o.Description), jsonText(n.Description))
	}
	oin, nin := storedSchema(o.InputSchema), storedSchema(n.InputSchema)
	d.node(oin, nin, path{root: "(root)"}, "/inputSchema", "", 0)
	oout, nout := storedSchema(o.OutputSchema), storedSchema(n.OutputSchema)
	d.output = true
	switch {
	case oout == nil && nout == nil:
	case oout == nil:
		d.add(Safe, "(output)", "/outputSchema", "Output schema added: results now carry structured content", "", compact(nout))
	case nout == nil:
		d.add(Breaking, "(output)", "/outputSchema", "Output schema removed: structured results are no longer promised", compact(oout), "")
	default:
		d.node(oout, nout, path{root: "(output)", sep: true}, "/outputSchema", "", 0)
	}
	return d.out
}

// storedSchema decodes and normalizes a stored schema; nil when absent.
// A schema that is not JSON (a Tool built by hand) compares as its text.
func storedSchema(raw json.RawMessage) any {
	if raw == nil {
		return nil
	}
	v, err := jsonvalue.DecodeLocated(raw)
	if err != nil {
		return string(raw)
	}
	if v == nil {
		return nil
	}
	return normalizeSchema(v)
}

// effect is what a change does to the set of values a schema accepts;
// differ.sev turns it into a Severity for the input or the output side.
type effect int

const (
	cosmetic     effect = iota
	narrowed            // fewer values accepted
	widened             // more values accepted
	widenedClass        // more values accepted, among them a class the old schema ruled out (null, empty, zero, a sign)
	incompatible        // some old values rejected, some new ones accepted
	meaning             // the same values, a different behaviour (default, deprecation)
)

// sev maps an effect to a severity. On the input side a client sends values:
// narrowing breaks it. On the output side a client receives them: narrowing
// promises more (SAFE), widening may hand it values it never handled
// (RISKY), an incompatible change breaks it.
func (d *differ) sev(e effect) Severity {
	switch e {
	case cosmetic:
		return Cosmetic
	case narrowed:
		if d.output {
			return Safe
		}
		return Breaking
	case widened:
		if d.output {
			return Risky
		}
		return Safe
	case widenedClass, meaning:
		return Risky
	}
	return Breaking
}

type differ struct {
	tool   string
	output bool
	out    []Change
}

func (d *differ) add(s Severity, field, loc, desc, before, after string) {
	d.out = append(d.out, Change{Severity: s, Tool: d.tool, Field: field, Description: desc, Before: before, After: after, Location: loc})
}

// path builds a Field.
type path struct {
	root string // "(root)" or "(output)"
	sep  bool   // the root is written before the first element
	s    string
}

func (p path) String() string {
	switch {
	case p.s == "":
		return p.root
	case p.sep:
		if p.s[0] == '[' {
			return p.root + p.s
		}
		return p.root + "." + p.s
	}
	return p.s
}

// key appends a property name.
func (p path) key(name string) path {
	if !isIdent(name) {
		p.s += "[" + jsonText(name) + "]"
	} else if p.s == "" {
		p.s = name
	} else {
		p.s += "." + name
	}
	return p
}

// elem appends an element marker: "[*]" for any element or any unlisted
// property, "[2]" for a tuple position.
func (p path) elem(marker string) path {
	p.s += marker
	return p
}

// isIdent matches the issues package's rule for keys written bare.
func isIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '_' || c == '$' || (c|0x20 >= 'a' && c|0x20 <= 'z'):
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// pointer escapes one JSON pointer token.
func pointer(tok string) string {
	return "/" + strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

// node compares two schemas at one place. branch, when set, names the
// combinator alternative being compared ("anyOf alternative 2") and
// prefixes the descriptions of the changes found directly in it.
func (d *differ) node(o, n any, p path, loc, branch string, depth int) {
	if reflect.DeepEqual(o, n) {
		return
	}
	field := p.String()
	say := func(s string) string {
		if branch != "" {
			return branch + ": " + s
		}
		return s
	}
	if depth > maxDepth {
		d.add(d.sev(incompatible), field, loc, say("Schema changed"), compact(o), compact(n))
		return
	}
	if b, ok := o.(bool); ok && b {
		o = map[string]any{}
	}
	if b, ok := n.(bool); ok && b {
		n = map[string]any{}
	}
	if b, ok := o.(bool); ok && !b {
		d.add(d.sev(widened), field, loc, say("Now accepts values (accepted none before)"), "false", compact(n))
		return
	}
	if b, ok := n.(bool); ok && !b {
		d.add(d.sev(narrowed), field, loc, say("No longer accepts any value"), compact(o), "false")
		return
	}
	om, ok1 := o.(map[string]any)
	nm, ok2 := n.(map[string]any)
	if !ok1 || !ok2 {
		d.add(d.sev(incompatible), field, loc, say("Schema changed"), compact(o), compact(n))
		return
	}
	c := &cmpNode{d: d, o: om, n: nm, p: p, field: field, loc: loc, say: say, depth: depth}
	c.compare()
}

// cmpNode compares the keywords of two object schemas.
type cmpNode struct {
	d          *differ
	o, n       map[string]any
	p          path
	field, loc string
	say        func(string) string
	depth      int
}

func (c *cmpNode) add(e effect, kw, desc string, before, after any) {
	c.d.add(c.d.sev(e), c.field, c.loc+pointer(kw), c.say(desc), compact(before), compact(after))
}

func (c *cmpNode) compare() {
	keys := make(map[string]bool, len(c.o)+len(c.n))
	for k := range c.o {
		keys[k] = true
	}
	for k := range c.n {
		keys[k] = true
	}
	done := map[string]bool{}
	c.properties(done)
	for _, k := range sortedKeys(keys) {
		if done[k] {
			continue
		}
		ov, inOld := c.o[k]
		nv, inNew := c.n[k]
		if inOld && inNew && reflect.DeepEqual(ov, nv) {
			continue
		}
		if !inOld {
			ov = none{}
		}
		if !inNew {
			nv = none{}
		}
		c.keyword(k, ov, nv, inOld, inNew)
	}
}

var boundNames = map[string]string{
	"minimum": "Minimum", "exclusiveMinimum": "Exclusive minimum",
	"maximum": "Maximum", "exclusiveMaximum": "Exclusive maximum",
	"minLength": "Minimum length", "maxLength": "Maximum length",
	"minItems": "Minimum number of items", "maxItems": "Maximum number of items",
	"minProperties": "Minimum number of properties", "maxProperties": "Maximum number of properties",
	"minContains": "Minimum number of matching items", "maxContains": "Maximum number of matching items",
}

// lower reports whether a bound keyword is a lower bound (raising it
// tightens).
func lower(kw string) bool { return strings.HasPrefix(kw, "min") || kw == "exclusiveMinimum" }

// Keywords that only annotate: their changes are COSMETIC.
var cosmeticKeywords = set("title", "description", "examples", "$comment", "readOnly", "writeOnly",
	"$id", "id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$vocabulary", "contentMediaType")

// Keywords that validate but are not analysed one by one: added is
// narrowed, removed is widened, changed is incompatible.
var opaqueKeywords = set("not", "if", "$ref", "$dynamicRef", "$recursiveRef", "dependencies",
	"dependentRequired", "dependentSchemas", "patternProperties", "contentEncoding", "properties", "required")

// Keywords whose subschema constrains values the same way as its parent:
// compared recursively, with where the subschema applies.
var nestedKeywords = map[string]string{
	"items": "[*]", "additionalItems": "[*]", "unevaluatedItems": "[*]", "contains": "[*]",
	"propertyNames": "", "then": "", "else": "", "contentSchema": "",
}

func isNested(k string) bool { _, ok := nestedKeywords[k]; return ok }

var nestedBranch = map[string]string{
	"contains": "items that must be present", "propertyNames": "property names",
	"then": "then branch", "else": "else branch", "contentSchema": "decoded content",
}

func (c *cmpNode) keyword(k string, ov, nv any, inOld, inNew bool) {
	switch {
	case k == "type":
		c.typeChange(ov, nv, inOld, inNew)
	case k == "enum":
		c.enumChange(ov, nv, inOld, inNew)
	case k == "const":
		switch {
		case !inOld:
			c.add(narrowed, k, "Now must be exactly "+show(nv), none{}, nv)
		case !inNew:
			c.add(widened, k, "No longer restricted to "+show(ov), ov, none{})
		default:
			c.add(incompatible, k, "Required value changed from "+show(ov)+" to "+show(nv), ov, nv)
		}
	case boundNames[k] != "":
		c.bound(k, ov, nv, inOld, inNew)
	case k == "multipleOf":
		c.multipleOf(ov, nv, inOld, inNew)
	case k == "pattern" || k == "format":
		what := map[string]string{"pattern": "Pattern", "format": "Format"}[k]
		switch {
		case !inOld:
			c.add(narrowed, k, what+" "+show(nv)+" added", none{}, nv)
		case !inNew:
			c.add(widened, k, what+" "+show(ov)+" removed", ov, none{})
		default:
			c.add(incompatible, k, what+" changed from "+show(ov)+" to "+show(nv), ov, nv)
		}
	case k == "uniqueItems":
		ob, nb := ov == true, nv == true
		switch {
		case !ob && nb:
			c.add(narrowed, k, "Items must now be unique", ov, nv)
		case ob && !nb:
			c.add(widened, k, "Items no longer need to be unique", ov, nv)
		}
	case k == "additionalProperties" || k == "unevaluatedProperties":
		c.additional(k, ov, nv)
	case k == "allOf" || k == "anyOf" || k == "oneOf":
		c.combinator(k, ov, nv, inOld, inNew)
	case k == "prefixItems" || (k == "items" && (isArray(ov) || isArray(nv))):
		c.tuple(k, ov, nv, inOld, inNew)
	case k == "$defs" || k == "definitions":
		c.definitions(k, ov, nv)
	case isNested(k):
		if !inOld || !inNew {
			c.generic(k, ov, nv, inOld, inNew)
			return
		}
		c.d.node(ov, nv, c.p.elem(nestedKeywords[k]), c.loc+pointer(k), nestedBranch[k], c.depth+1)
	case k == "default":
		switch {
		case !inOld:
			c.add(meaning, k, "Default "+show(nv)+" added", none{}, nv)
		case !inNew:
			c.add(meaning, k, "Default "+show(ov)+" removed", ov, none{})
		default:
			c.add(meaning, k, "Default changed from "+show(ov)+" to "+show(nv), ov, nv)
		}
	case k == "deprecated":
		if nv == true && ov != true {
			c.add(meaning, k, "Deprecated", ov, nv)
		} else {
			c.add(cosmetic, k, "No longer deprecated", ov, nv)
		}
	case k == "$schema":
		c.add(meaning, k, "JSON Schema dialect changed from "+show(ov)+" to "+show(nv), ov, nv)
	case k == "description":
		c.add(cosmetic, k, "Description changed", ov, nv)
	case k == "title":
		c.add(cosmetic, k, "Title changed", ov, nv)
	case cosmeticKeywords[k]:
		c.add(cosmetic, k, "Annotation "+strconv.Quote(k)+" changed", ov, nv)
	case opaqueKeywords[k]:
		c.generic(k, ov, nv, inOld, inNew)
	default:
		c.add(cosmetic, k, "Unknown keyword "+strconv.Quote(k)+" changed (validators ignore it)", ov, nv)
	}
}

// generic classifies a keyword that is not analysed in detail.
func (c *cmpNode) generic(k string, ov, nv any, inOld, inNew bool) {
	switch {
	case !inOld:
		c.add(narrowed, k, "Constraint "+strconv.Quote(k)+" added", none{}, nv)
	case !inNew:
		c.add(widened, k, "Constraint "+strconv.Quote(k)+" removed", ov, none{})
	default:
		c.add(incompatible, k, "Constraint "+strconv.Quote(k)+" changed", ov, nv)
	}
}

// properties compares properties and required together.
func (c *cmpNode) properties(done map[string]bool) {
	op, okO := c.o["properties"].(map[string]any)
	np, okN := c.n["properties"].(map[string]any)
	oreq, okRO := stringSet(c.o["required"])
	nreq, okRN := stringSet(c.n["required"])
	if (c.o["properties"] != nil && !okO) || (c.n["properties"] != nil && !okN) ||
		(c.o["required"] != nil && !okRO) || (c.n["required"] != nil && !okRN) {
		return // malformed: compared as opaque keywords
	}
	done["properties"], done["required"] = true, true
	names := map[string]bool{}
	for k := range op {
		names[k] = true
	}
	for k := range np {
		names[k] = true
	}
	for k := range oreq {
		names[k] = true
	}
	for k := range nreq {
		names[k] = true
	}
	out := c.d.output
	for _, name := range sortedKeys(names) {
		field := c.p.key(name)
		ploc := c.loc + "/properties" + pointer(name)
		rloc := c.loc + "/required"
		ov, inO := op[name]
		nv, inN := np[name]
		switch {
		case inO && !inN:
			switch {
			case out && oreq[name]:
				c.d.add(Breaking, field.String(), ploc, "Property no longer returned", compact(ov), "")
			case out:
				c.d.add(Risky, field.String(), ploc, "Optional property no longer returned", compact(ov), "")
			default:
				c.d.add(Breaking, field.String(), ploc, "Property removed", compact(ov), "")
			}
			continue
		case !inO && inN:
			switch {
			case out:
				c.d.add(Safe, field.String(), ploc, "New property returned", "", compact(nv))
			case nreq[name]:
				c.d.add(Breaking, field.String(), ploc, "New required property", "", compact(nv))
			default:
				c.d.add(Safe, field.String(), ploc, "New optional property", "", compact(nv))
			}
			continue
		case inO && inN:
			c.d.node(ov, nv, field, ploc, "", c.depth+1)
		}
		switch {
		case nreq[name] && !oreq[name]:
			if out {
				c.d.add(Safe, field.String(), rloc, "Now always returned", "", "")
			} else {
				c.d.add(Breaking, field.String(), rloc, "Now required", "", "")
			}
		case oreq[name] && !nreq[name]:
			if out {
				c.d.add(Breaking, field.String(), rloc, "No longer always returned: may be missing", "", "")
			} else {
				c.d.add(Safe, field.String(), rloc, "No longer required", "", "")
			}
		}
	}
}

func stringSet(v any) (map[string]bool, bool) {
	if v == nil {
		return nil, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	m := make(map[string]bool, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, false
		}
		m[s] = true
	}
	return m, true
}

// JSON types as bits; integer is a part of number.
const (
	tNull = 1 << iota
	tBool
	tObject
	tArray
	tInteger
	tFraction // numbers that are not integers
	tString
	tAll = 1<<iota - 1
)

var typeBits = map[string]int{"null": tNull, "boolean": tBool, "object": tObject, "array": tArray,
	"integer": tInteger, "number": tInteger | tFraction, "string": tString}

// types returns what a "type" value accepts; ok is false for a malformed one.
func types(v any, present bool) (int, bool) {
	if !present {
		return tAll, true
	}
	switch v := v.(type) {
	case string:
		b, ok := typeBits[v]
		return b, ok
	case []any:
		bits := 0
		for _, e := range v {
			s, _ := e.(string)
			b, ok := typeBits[s]
			if !ok {
				return 0, false
			}
			bits |= b
		}
		return bits, true
	}
	return 0, false
}

// typeText names a "type" keyword's value. Only the JSON type names are
// written bare; anything else a schema put there is shown as JSON, so that a
// name holding a newline or a quote cannot break the one-line description.
func typeText(v any, present bool) string {
	if !present {
		return "any type"
	}
	if a, ok := v.([]any); ok {
		parts := make([]string, len(a))
		for i, e := range a {
			parts[i] = typeName(e)
		}
		return strings.Join(parts, " or ")
	}
	return typeName(v)
}

func typeName(v any) string {
	if s, ok := v.(string); ok {
		if _, known := typeBits[s]; known {
			return s
		}
	}
	return show(v)
}

func (c *cmpNode) typeChange(ov, nv any, inOld, inNew bool) {
	ob, ok1 := types(ov, inOld)
	nb, ok2 := types(nv, inNew)
	if !ok1 || !ok2 {
		c.generic("type", ov, nv, inOld, inNew)
		return
	}
	from, to := typeText(ov, inOld), typeText(nv, inNew)
	lost, gained := ob&^nb, nb&^ob
	switch {
	case lost == 0 && gained == 0:
		c.add(cosmetic, "type", "Type written differently ("+from+" and "+to+" accept the same values)", ov, nv)
	case lost == 0:
		if gained&tNull != 0 && ob&tNull == 0 {
			c.add(widenedClass, "type", "Type widened from "+from+" to "+to+": null is now accepted", ov, nv)
		} else {
			c.add(widened, "type", "Type widened from "+from+" to "+to, ov, nv)
		}
	case gained == 0:
		c.add(narrowed, "type", "Type narrowed from "+from+" to "+to, ov, nv)
	default:
		c.add(incompatible, "type", "Type changed from "+from+" to "+to, ov, nv)
	}
}

func (c *cmpNode) enumChange(ov, nv any, inOld, inNew bool) {
	ol, ok1 := ov.([]any)
	nl, ok2 := nv.([]any)
	switch {
	case !inOld && ok2:
		c.add(narrowed, "enum", "Now restricted to "+showList(nl), none{}, nv)
		return
	case !inNew && ok1:
		c.add(widened, "enum", "No longer restricted to a list of values", ov, none{})
		return
	case !ok1 || !ok2:
		c.generic("enum", ov, nv, inOld, inNew)
		return
	}
	oset, nset := map[string]bool{}, map[string]bool{}
	for _, v := range ol {
		oset[string(encode(v))] = true
	}
	for _, v := range nl {
		nset[string(encode(v))] = true
	}
	var removed, added []any
	for _, v := range ol {
		if !nset[string(encode(v))] {
			removed = append(removed, v)
		}
	}
	for _, v := range nl {
		if !oset[string(encode(v))] {
			added = append(added, v)
		}
	}
	gone, come := " no longer accepted", " now accepted"
	if c.d.output {
		gone, come = " no longer returned", " now returned"
	}
	if len(removed) > 0 {
		c.add(narrowed, "enum", plural(len(removed), "Value ", "Values ")+showList(removed)+plural(len(removed), " is", " are")+gone, ov, nv)
	}
	if len(added) > 0 {
		c.add(widened, "enum", plural(len(added), "Value ", "Values ")+showList(added)+plural(len(added), " is", " are")+come, ov, nv)
	}
	if len(removed) == 0 && len(added) == 0 {
		c.add(cosmetic, "enum", "Allowed values reordered", ov, nv)
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// bound compares one numeric or size bound.
func (c *cmpNode) bound(k string, ov, nv any, inOld, inNew bool) {
	on, ok1 := ov.(json.Number)
	nn, ok2 := nv.(json.Number)
	name := boundNames[k]
	if (inOld && !ok1) || (inNew && !ok2) {
		// draft 4: exclusiveMinimum and exclusiveMaximum are booleans
		// that make minimum and maximum exclusive.
		ob, okb1 := ov.(bool)
		nb, okb2 := nv.(bool)
		switch {
		case (okb1 || !inOld) && (okb2 || !inNew) && !ob && nb:
			c.add(narrowed, k, name+": the bound itself is no longer accepted", ov, nv)
		case (okb1 || !inOld) && (okb2 || !inNew) && ob && !nb:
			c.add(widened, k, name+": the bound itself is now accepted", ov, nv)
		case (okb1 || !inOld) && (okb2 || !inNew):
		default:
			c.generic(k, ov, nv, inOld, inNew)
		}
		return
	}
	var e effect
	var desc string
	switch {
	case !inOld:
		e, desc = narrowed, name+" of "+string(nn)+" added"
	case !inNew:
		e, desc = widened, name+" of "+string(on)+" removed"
	default:
		r := compareNumbers(on, nn)
		if r == 0 {
			return
		}
		up := r < 0
		verb := " lowered from "
		if up {
			verb = " raised from "
		}
		desc = name + verb + string(on) + " to " + string(nn)
		if up == lower(k) {
			e = narrowed
		} else {
			e = widened
		}
	}
	if e == widened {
		if note := c.newClass(k); note != "" {
			e, desc = widenedClass, desc+": "+note
		}
	}
	c.add(e, k, desc, ov, nv)
}

// newClass says which class of values a loosened bound lets in that the old
// schema ruled out entirely: zero, negative or positive numbers, or empty
// strings, arrays or objects. Those values often mean something of their
// own (free, a refund, "no limit", "none") the old contract never defined.
func (c *cmpNode) newClass(k string) string {
	switch k {
	case "minLength", "minItems", "minProperties":
		if positive(c.o[k]) && !positive(c.n[k]) {
			return map[string]string{"minLength": "empty strings", "minItems": "empty arrays", "minProperties": "empty objects"}[k] + " are now accepted"
		}
		return ""
	case "minimum", "exclusiveMinimum", "maximum", "exclusiveMaximum":
		// The new schema with only this bound as it was, so that each
		// bound answers for what its own change lets in.
		before := make(map[string]any, len(c.n))
		for kw, v := range c.n {
			before[kw] = v
		}
		if v, ok := c.o[k]; ok {
			before[k] = v
		} else {
			delete(before, k)
		}
		oneg, ozero, opos := signs(before)
		nneg, nzero, npos := signs(c.n)
		var notes []string
		if !oneg && nneg {
			notes = append(notes, "negative numbers")
		}
		if !ozero && nzero {
			notes = append(notes, "zero")
		}
		if !opos && npos {
			notes = append(notes, "positive numbers")
		}
		if len(notes) == 0 {
			return ""
		}
		return strings.Join(notes, " and ") + " now accepted"
	}
	return ""
}

func positive(v any) bool {
	n, ok := v.(json.Number)
	return ok && compareNumbers(n, "0") > 0
}

// signs says which signs of number a schema's bounds let through.
func signs(m map[string]any) (neg, zero, pos bool) {
	neg, zero, pos = true, true, true
	lowerAt := func(v any, excl bool) {
		n, ok := v.(json.Number)
		if !ok {
			return
		}
		switch s := compareNumbers(n, "0"); {
		case s > 0:
			neg, zero = false, false
		case s == 0:
			neg = false
			if excl {
				zero = false
			}
		}
	}
	upperAt := func(v any, excl bool) {
		n, ok := v.(json.Number)
		if !ok {
			return
		}
		switch s := compareNumbers(n, "0"); {
		case s < 0:
			pos, zero = false, false
		case s == 0:
			pos = false
			if excl {
				zero = false
			}
		}
	}
	lowerAt(m["minimum"], m["exclusiveMinimum"] == true) // draft 4: a boolean beside it
	lowerAt(m["exclusiveMinimum"], true)
	upperAt(m["maximum"], m["exclusiveMaximum"] == true)
	upperAt(m["exclusiveMaximum"], true)
	return neg, zero, pos
}

// compareNumbers orders two JSON numbers: exactly for 64-bit integers, as
// float64 otherwise.
func compareNumbers(a, b json.Number) int {
	ai, err1 := strconv.ParseInt(string(a), 10, 64)
	bi, err2 := strconv.ParseInt(string(b), 10, 64)
	if err1 == nil && err2 == nil {
		return cmp.Compare(ai, bi)
	}
	af, _ := strconv.ParseFloat(string(a), 64) // ±Inf when too large
	bf, _ := strconv.ParseFloat(string(b), 64)
	return cmp.Compare(af, bf)
}

// rat reads a finite JSON number exactly; ok is false for huge exponents.
func rat(n json.Number) (*big.Rat, bool) {
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return nil, false
	}
	if i := strings.IndexAny(string(n), "eE"); i >= 0 {
		if e, err := strconv.Atoi(string(n)[i+1:]); err != nil || e > 400 || e < -400 {
			return nil, false
		}
	}
	r, ok := new(big.Rat).SetString(string(n))
	return r, ok
}

func (c *cmpNode) multipleOf(ov, nv any, inOld, inNew bool) {
	switch {
	case !inOld:
		c.add(narrowed, "multipleOf", "Must now be a multiple of "+show(nv), none{}, nv)
		return
	case !inNew:
		c.add(widened, "multipleOf", "No longer needs to be a multiple of "+show(ov), ov, none{})
		return
	}
	on, ok1 := ov.(json.Number)
	nn, ok2 := nv.(json.Number)
	or, ok3 := rat(on)
	nr, ok4 := rat(nn)
	desc := "Multiple of " + show(ov) + " changed to multiple of " + show(nv)
	if !ok1 || !ok2 || !ok3 || !ok4 || or.Sign() == 0 || nr.Sign() == 0 {
		c.add(incompatible, "multipleOf", desc, ov, nv)
		return
	}
	switch {
	case new(big.Rat).Quo(or, nr).IsInt(): // every old multiple is a new one
		c.add(widened, "multipleOf", desc, ov, nv)
	case new(big.Rat).Quo(nr, or).IsInt():
		c.add(narrowed, "multipleOf", desc, ov, nv)
	default:
		c.add(incompatible, "multipleOf", desc, ov, nv)
	}
}

// additional compares additionalProperties or unevaluatedProperties: open
// (absent, true or {}), closed (false) or a schema.
func (c *cmpNode) additional(k string, ov, nv any) {
	state := func(v any) int {
		switch v := v.(type) {
		case none:
			return 0
		case bool:
			if v {
				return 0
			}
			return 1
		case map[string]any:
			if len(v) == 0 {
				return 0
			}
		}
		return 2
	}
	const open, closed, schema = 0, 1, 2
	os, ns := state(ov), state(nv)
	switch {
	case os == ns && os == schema:
		c.d.node(ov, nv, c.p.elem("[*]"), c.loc+pointer(k), "", c.depth+1)
	case os == ns:
		c.add(cosmetic, k, "Written differently, same meaning", ov, nv)
	case os == open && ns == closed:
		c.add(narrowed, k, "Properties not listed are no longer accepted", ov, nv)
	case os == closed && ns == open:
		c.add(widened, k, "Properties not listed are now accepted", ov, nv)
	case os == open && ns == schema:
		c.add(narrowed, k, "Properties not listed must now match a schema", ov, nv)
	case os == schema && ns == open:
		c.add(widened, k, "Properties not listed are no longer constrained", ov, nv)
	case os == closed && ns == schema:
		c.add(widened, k, "Properties not listed are now accepted when they match a schema", ov, nv)
	default: // schema → closed
		c.add(narrowed, k, "Properties not listed are no longer accepted", ov, nv)
	}
}

// definitions compares $defs (or definitions), kept when some $ref could not
// be inlined: a definition changed is compared as a schema at "$defs.Name";
// one added or removed changes nothing by itself (a $ref to it would).
func (c *cmpNode) definitions(k string, ov, nv any) {
	om, ok1 := ov.(map[string]any)
	nm, ok2 := nv.(map[string]any)
	if _, absent := ov.(none); absent {
		om, ok1 = map[string]any{}, true
	}
	if _, absent := nv.(none); absent {
		nm, ok2 = map[string]any{}, true
	}
	if !ok1 || !ok2 {
		c.add(cosmetic, k, "Definitions changed", ov, nv)
		return
	}
	names := map[string]bool{}
	for n := range om {
		names[n] = true
	}
	for n := range nm {
		names[n] = true
	}
	for _, name := range sortedKeys(names) {
		o, inO := om[name]
		n, inN := nm[name]
		p := path{s: k}.key(name)
		loc := c.loc + pointer(k) + pointer(name)
		switch {
		case inO && inN:
			c.d.node(o, n, p, loc, "", c.depth+1)
		case inO:
			c.d.add(Cosmetic, p.String(), loc, "Definition removed", compact(o), "")
		default:
			c.d.add(Cosmetic, p.String(), loc, "Definition added", "", compact(n))
		}
	}
}

// tuple compares prefixItems (or a draft 4-7 items array) position by
// position.
func (c *cmpNode) tuple(k string, ov, nv any, inOld, inNew bool) {
	ol, ok1 := ov.([]any)
	nl, ok2 := nv.([]any)
	if !ok1 || !ok2 {
		c.generic(k, ov, nv, inOld, inNew)
		return
	}
	for i := range max(len(ol), len(nl)) {
		loc := c.loc + pointer(k) + "/" + strconv.Itoa(i)
		field := c.p.elem("[" + strconv.Itoa(i) + "]").String()
		switch {
		case i >= len(ol):
			c.d.add(c.d.sev(narrowed), field, loc, c.say("Item "+strconv.Itoa(i)+" now constrained"), "", compact(nl[i]))
		case i >= len(nl):
			c.d.add(c.d.sev(widened), field, loc, c.say("Item "+strconv.Itoa(i)+" no longer constrained"), compact(ol[i]), "")
		default:
			c.d.node(ol[i], nl[i], c.p.elem("["+strconv.Itoa(i)+"]"), loc, "", c.depth+1)
		}
	}
}

// combinator compares allOf, anyOf or oneOf. Alternatives are matched
// structurally, not by position: first identical ones, then, among the
// rest, alternatives with the same "type" in order of appearance; those
// pairs are compared keyword by keyword. What is left was removed or added.
// An alternative removed from anyOf or oneOf narrows (BREAKING), one added
// widens (SAFE) — except in oneOf, where a new alternative that overlaps an
// old one makes values matching both invalid: RISKY. allOf is the reverse:
// a member added narrows, one removed widens.
func (c *cmpNode) combinator(k string, ov, nv any, inOld, inNew bool) {
	ol, ok1 := ov.([]any)
	nl, ok2 := nv.([]any)
	if !ok1 || !ok2 {
		c.generic(k, ov, nv, inOld, inNew)
		return
	}
	matchO, matchN := make([]int, len(ol)), make([]int, len(nl))
	for i := range matchO {
		matchO[i] = -1
	}
	for j := range matchN {
		matchN[j] = -1
	}
	pair := func(same func(a, b any) bool) {
		for i := range ol {
			if matchO[i] >= 0 {
				continue
			}
			for j := range nl {
				if matchN[j] < 0 && same(ol[i], nl[j]) {
					matchO[i], matchN[j] = j, i
					break
				}
			}
		}
	}
	pair(reflect.DeepEqual)
	typeOf := func(v any) any {
		if m, ok := v.(map[string]any); ok {
			return m["type"]
		}
		return v
	}
	pair(func(a, b any) bool { return reflect.DeepEqual(typeOf(a), typeOf(b)) })
	kind := map[string]string{"allOf": "member", "anyOf": "alternative", "oneOf": "alternative"}[k]
	name := func(i int) string { return kind + " " + strconv.Itoa(i+1) + " of " + k }
	for i, j := range matchO {
		loc := c.loc + pointer(k) + "/" + strconv.Itoa(i)
		if j < 0 {
			e := narrowed
			if k == "allOf" {
				e = widened
			}
			c.d.add(c.d.sev(e), c.field, loc, c.say(capital(name(i))+" ("+summary(ol[i])+") removed"), compact(ol[i]), "")
			continue
		}
		c.d.node(ol[i], nl[j], c.p, c.loc+pointer(k)+"/"+strconv.Itoa(j), "In "+name(j), c.depth+1)
	}
	for j, i := range matchN {
		if i >= 0 {
			continue
		}
		loc := c.loc + pointer(k) + "/" + strconv.Itoa(j)
		desc := c.say(capital(name(j)) + " (" + summary(nl[j]) + ") added")
		switch k {
		case "allOf":
			c.d.add(c.d.sev(narrowed), c.field, loc, desc, "", compact(nl[j]))
		case "oneOf":
			c.d.add(Risky, c.field, loc, desc+": a value matching two alternatives is rejected", "", compact(nl[j]))
		default:
			c.d.add(c.d.sev(widened), c.field, loc, desc, "", compact(nl[j]))
		}
	}
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// summary names an alternative in a few words: its type, or its constant.
func summary(v any) string {
	m, ok := v.(map[string]any)
	if !ok {
		return show(v)
	}
	if t, ok := m["type"]; ok {
		return typeText(t, true)
	}
	if cv, ok := m["const"]; ok {
		return show(cv)
	}
	if r, ok := m["$ref"]; ok {
		return show(r)
	}
	return "a schema"
}

// none stands for a keyword that is absent (nil is JSON null).
type none struct{}

// compact writes a JSON value for Before and After; "" when it is absent.
func compact(v any) string {
	if _, ok := v.(none); ok {
		return ""
	}
	return string(encode(v))
}

// jsonText writes a string as a JSON string literal.
func jsonText(s string) string { return string(encode(s)) }

// show writes a JSON value inside a description: compact, on one line, and
// cut after 40 characters.
func show(v any) string {
	s := string(encode(v))
	if utf8.RuneCountInString(s) > 40 {
		r := []rune(s)
		s = string(r[:40]) + "…"
	}
	return s
}

// showList writes up to five values and how many more there are.
func showList(vs []any) string {
	parts := make([]string, 0, 6)
	for i, v := range vs {
		if i == 5 {
			parts = append(parts, "and "+strconv.Itoa(len(vs)-5)+" more")
			break
		}
		parts = append(parts, show(v))
	}
	return strings.Join(parts, ", ")
}

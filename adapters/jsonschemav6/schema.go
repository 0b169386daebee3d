package jsonschemav6

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/jsonvalue"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/issues"
)

// defaultLocation is the URL a schema compiled by Compile is known by,
// unless WithLocation says otherwise.
const defaultLocation = "mem:///schema.json"

// Schema is a compiled JSON Schema that reports failures as issues. It is
// immutable and safe for concurrent use. An error from validating with the
// library yourself goes to selfheal's Engine, which recognises it; for
// issues with the values sent, validate through the Schema.
type Schema struct {
	sch  *jsonschema.Schema
	subs map[string]sub // every compiled subschema by location, see sub
	// maxDepth is the nesting limit of instances, as WithMaxDepth set it
	// (0: issues.DefaultMaxDepth, negative: none).
	maxDepth int
	// typos describes the schema for the near-miss walk (see WithTypos);
	// nil when WithTypos is off or the schema declares no property.
	typos *nearmiss.Shape
}

// sub is a compiled subschema with what wording its failures reads of it,
// found once by Compile. DESIGN section 5 wants a bad call at dispatch
// within 1 × go-sdk's own check; sorting the declared names and walking the
// document to "type" and bounds on every failure made converting go-sdk's
// benchmark arguments (5 failures) cost twice the library's Validate, 33
// allocations against its 38 (now 19, and Validate 38 -> 18 us, medians of
// 6 paired runs on a busy machine).
type sub struct {
	sch      *jsonschema.Schema
	obj      map[string]any // the subschema in its document; nil when unknown
	declared []string       // its property names, sorted
	types    issues.Types   // its "type", in the order the document lists them
}

// index finds every subschema reachable from root, with its object in docs.
func index(root *jsonschema.Schema, docs schema.Docs) map[string]sub {
	subs := map[string]sub{}
	for loc, x := range schema.Index(root, read) {
		u := sub{sch: x, obj: docs.Object(loc), declared: slices.Sorted(maps.Keys(x.Properties))}
		if x.Types != nil {
			u.types = types(u.obj, x.Types.ToStrings())
		}
		subs[loc] = u
	}
	return subs
}

// at returns the compiled subschema at a location; its sch is nil when
// unknown.
func (s *Schema) at(loc string) sub {
	if s == nil {
		return sub{}
	}
	return s.subs[loc]
}

// types lists the types lib in the order the document's obj lists them, or
// else in the library's order.
func types(obj map[string]any, lib []string) issues.Types {
	switch t := obj["type"].(type) {
	case string:
		return issuesx.TypesOf(t)
	case []any:
		names := make([]string, 0, len(t))
		for _, x := range t {
			if n, ok := x.(string); ok {
				names = append(names, n)
			}
		}
		if len(names) == len(lib) {
			return issuesx.TypesOf(names...)
		}
	}
	return issuesx.TypesOf(lib...)
}

// Option configures Compile.
type Option func(*config)

type config struct {
	formats       bool
	loader        jsonschema.URLLoader
	location      string
	configureHook func(*jsonschema.Compiler)
	maxDepth      int
	typos         bool
	// skipPattern is WithUncompilablePatterns' function.
	skipPattern func(pattern string, err error)
}

// WithFormatAssertion turns the checking of "format" on or off. It is on
// by default: a tool's arguments that say "email" should be an email. (The
// library alone checks formats only for drafts before 2019-09.)
func WithFormatAssertion(on bool) Option {
	return func(c *config) { c.formats = on }
}

// WithLoader sets the loader of remote references ($ref to another
// document). Without one, only the schema itself and the draft meta-schemas
// can be referenced: compiling never reaches the network or the file system
// unless asked to.
func WithLoader(l jsonschema.URLLoader) Option {
	return func(c *config) { c.loader = l }
}

// WithLocation sets the URL the schema is known by ("mem:///schema.json"
// by default), against which its relative references resolve.
func WithLocation(u string) Option {
	return func(c *config) { c.location = u }
}

// WithCompiler calls f on the library's compiler before compiling, to
// register custom formats, vocabularies or a regexp engine (replacing
// Compile's, see WithUncompilablePatterns), to set the
// draft of a schema without "$schema" (DefaultDraft; 2020-12 by default),
// or to check contentEncoding, contentMediaType and contentSchema
// (AssertContent; off by default). f runs after the other options; set a
// loader with WithLoader, not the compiler's UseLoader, so that bounds in
// the loaded documents are written as they wrote them.
func WithCompiler(f func(*jsonschema.Compiler)) Option {
	return func(c *config) { c.configureHook = f }
}

// WithMaxDepth sets how deeply an instance may nest objects and arrays (the
// root object is level 1). Validate, AppendValidate and ValidateJSON refuse
// a deeper instance before the library sees it, with one too_big issue of
// origin "depth" (see issues.CheckDepthJSON): the library's cost grows with the
// square of the depth (0.8 s and 841 MB for 10,000 levels). n == 0 means
// issues.DefaultMaxDepth (64), the default; n < 0 turns the check off.
// ValidateJSON's decoding still refuses JSON deeper than 1000 levels, as a
// malformed-JSON issue.
func WithMaxDepth(n int) Option {
	return func(c *config) { c.maxDepth = n }
}

// WithUncompilablePatterns keeps a schema with a pattern that no regular
// expression engine compiles, and calls report with it and ECMAScript's
// reason, once per pattern, during Compile. Such a pattern is skipped and
// the rest of the schema still checked: a "pattern" keyword never fails,
// and a "patternProperties" entry counts as declaring every property
// without checking its value (which properties it meant is unknown).
// Without it (or with a nil report) such a schema is an error of Compile.
// A regexp engine set through WithCompiler replaces Compile's, and with it
// this skipping.
func WithUncompilablePatterns(report func(pattern string, err error)) Option {
	return func(c *config) { c.skipPattern = report }
}

// recorder keeps each document a loader returns, so that bounds can be
// written as the document wrote them.
type recorder struct {
	next jsonschema.URLLoader
	docs map[string]any
}

func (r recorder) Load(u string) (any, error) {
	doc, err := r.next.Load(u)
	if err == nil {
		r.docs[u] = doc
	}
	return doc, err
}

// Compile compiles a JSON Schema document. A schema that is not JSON, that
// the meta-schema rejects, or whose references cannot be resolved is an
// error, returned here rather than shown to a model later.
//
// Patterns are read as JSON Schema defines them, as ECMAScript regular
// expressions with the u flag: lookaround, backreferences and \p{Letter}
// work, \d is [0-9] and \s is ECMAScript's white space. Go's regexp
// matches those it reads alike, in linear time; the others go to a
// backtracking engine (github.com/dlclark/regexp2), whose match is cut
// after 100 to 200 ms and then counts as a match: what cannot be judged is
// not refused, the server decides. A pattern that is not ECMAScript is
// read as Go's regexp reads it (\pL, (?P<name>…)), else as JavaScript
// without the u flag does ("^(?!-)[\w-.]+$"); see WithUncompilablePatterns
// for one that nothing reads.
func Compile(data []byte, opts ...Option) (*Schema, error) {
	cfg := config{formats: true, location: defaultLocation}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	doc, err := jsonvalue.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("jsonschemav6: the schema is not valid JSON: %w", err)
	}
	s := &Schema{maxDepth: cfg.maxDepth}
	docs := schema.Docs{}
	c := jsonschema.NewCompiler()
	engine := &patternEngine{skip: cfg.skipPattern}
	c.UseRegexpEngine(engine.compile)
	if cfg.formats {
		c.AssertFormat()
	}
	if cfg.loader != nil {
		c.UseLoader(recorder{next: cfg.loader, docs: docs})
	}
	if cfg.configureHook != nil {
		cfg.configureHook(c)
	}
	loc := cfg.location
	if i := strings.IndexByte(loc, '#'); i >= 0 {
		loc = loc[:i]
	}
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("jsonschemav6: %w", err)
	}
	sch, err := c.Compile(loc)
	// From here on the engine judges values of format "regex", the
	// model's, not the schema's patterns.
	engine.skip = nil
	if err != nil {
		return nil, fmt.Errorf("jsonschemav6: the schema does not compile: %w", err)
	}
	if len(engine.skipped) > 0 {
		acceptSkippedKeys(sch)
	}
	docs[loc] = doc
	s.sch, s.subs = sch, index(sch, docs)
	if cfg.typos {
		s.typos = schema.NearMisses(sch, read)
	}
	return s, nil
}

// FromCompiled wraps a schema compiled with the library directly. Its issues
// carry the declared property names and types; bounds are written from the
// library's exact values, since the documents are not known. Instances are
// held to issues.DefaultMaxDepth (see WithMaxDepth).
func FromCompiled(sch *jsonschema.Schema) *Schema {
	return &Schema{sch: sch, subs: index(sch, nil)}
}

// Validate validates instance (a value decoded from JSON, numbers best as
// json.Number) and returns its issues, or nil when it is valid. A valid
// instance costs what the library's Validate costs and a walk of its
// containers. An instance nested deeper than the limit (see WithMaxDepth)
// is not validated: the answer is the one issue that refuses it. With
// WithTypos, an instance the library finds valid may still have issues:
// its near misses of declared properties.
func (s *Schema) Validate(instance any) issues.List {
	return s.AppendValidate(nil, instance)
}

// AppendValidate is Validate appending the issues to dst: a server that
// keeps dst[:0] from one call to the next converts failures without
// growing a list. A valid instance (without near misses, with
// WithTypos) returns dst as it was, allocating nothing. A call appends at
// most 1,000 issues (and as many inside a union's branches or a key's
// issues); past them one issue at the end counts the others in its
// Omitted.
//
// The issues are the caller's own: changing them (their paths, allowed
// names and values …) changes nothing another call returns. Their Input
// is the value found in instance, not a copy.
func (s *Schema) AppendValidate(dst issues.List, instance any) issues.List {
	if is, deep := issues.CheckDepth(instance, s.maxDepth); deep {
		return append(dst, is)
	}
	return schema.Validate(dst, instance, s.sch.Validate, s.appendIssues, s.typos)
}

// ValidateJSON decodes data (keeping numbers exact) and validates it.
// Data nested deeper than the limit (see WithMaxDepth) is refused from its
// bytes, before it is decoded, with the one issue issues.CheckDepthJSON
// gives; that check does not judge whether data is JSON. Data that is not
// one well-formed JSON value is an invalid_format issue (format "json") at
// the root, with the decoder's reason as its Message.
func (s *Schema) ValidateJSON(data []byte) issues.List {
	v, bad := schema.DecodeArgs(data, s.maxDepth)
	if bad != nil {
		return bad
	}
	return schema.Validate(nil, v, s.sch.Validate, s.appendIssues, s.typos)
}

// Errors lets a selfheal Engine read the *jsonschema.ValidationError of
// santhosh-tekuri/jsonschema v6 as the library returns it, where the
// engine is built:
//
//	selfheal.New(selfheal.WithAdapters(jsonschemav6.Errors))
//
// Neither the instance nor the schema's document is at hand, so the issues
// say what the error tells of the value sent; a Schema's Validate says
// more. The issues of a Schema need no adapter.
var Errors issues.Adapter = appendRaw

// appendRaw appends the issues of a raw library error, the caller's own:
// they may share the library's slices.
func appendRaw(dst issues.List, err error) (issues.List, bool) {
	list, ok := (*Schema)(nil).appendIssues(dst, err, issues.Unknown{})
	return schema.Own(dst, list), ok
}

package jsonschemav5

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/selfheal/selfheal/internal/jsonvalue"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
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
	locs map[string]*jsonschema.Schema // compiled subschemas by location
	docs schema.Docs                   // schema documents by URL, for bounds as written
	// maxDepth is the nesting limit of instances, as WithMaxDepth set it
	// (0: issues.DefaultMaxDepth, negative: none).
	maxDepth int
	// typos describes the schema for the near-miss walk (see WithTypos);
	// nil when WithTypos is off or the schema declares no property.
	typos *nearmiss.Shape
}

// Option configures Compile.
type Option func(*config)

type config struct {
	formats  bool
	loader   func(url string) (io.ReadCloser, error)
	location string
	hook     func(*jsonschema.Compiler)
	maxDepth int
	typos    bool
}

// WithFormatAssertion turns the checking of "format" on or off. It is on
// by default: a tool's arguments that say "email" should be an email.
func WithFormatAssertion(on bool) Option {
	return func(c *config) { c.formats = on }
}

// WithLoader sets the loader of remote references. Without one, only the
// schema itself and the draft meta-schemas can be referenced: compiling
// never reaches the network or the file system unless asked to (the
// library's own default loader would read files).
func WithLoader(l func(url string) (io.ReadCloser, error)) Option {
	return func(c *config) { c.loader = l }
}

// WithLocation sets the URL the schema is known by ("mem:///schema.json"
// by default), against which its relative references resolve.
func WithLocation(u string) Option {
	return func(c *config) { c.location = u }
}

// WithCompiler calls f on the library's compiler before compiling, to
// register formats, decoders or extensions, or to set its Draft (used when
// the schema has no "$schema"; 2020-12 by default) or AssertContent
// (contentEncoding, contentMediaType and contentSchema; off by default). f
// runs after the other options, so what it sets wins; set a loader with
// WithLoader, not the compiler's LoadURL, so that bounds in the loaded
// documents are written as they wrote them.
func WithCompiler(f func(*jsonschema.Compiler)) Option {
	return func(c *config) { c.hook = f }
}

// WithMaxDepth sets how deeply an instance may nest objects and arrays (the
// root object is level 1). Validate, AppendValidate and ValidateJSON refuse
// a deeper instance before the library sees it, with one too_big issue of
// origin "depth" (see issues.CheckDepthJSON): the library's cost grows faster
// than the depth (1,000 levels take it seconds, 5,000 minutes). n == 0
// means issues.DefaultMaxDepth (64), the default; n < 0 turns the check
// off. ValidateJSON's decoding still refuses JSON deeper than 1000 levels,
// as a malformed-JSON issue.
func WithMaxDepth(n int) Option {
	return func(c *config) { c.maxDepth = n }
}

// Compile compiles a JSON Schema document. A schema that is not JSON, that
// the meta-schema rejects, or whose references cannot be resolved is an
// error, returned here rather than shown to a model later. So is a pattern
// Go's regexp does not compile, although JSON Schema's patterns are
// ECMAScript regular expressions ("^(?!admin)"): version 5 has no way to
// be given another engine, and the error names the pattern and says so.
// Compile such a schema with jsonschemav6.
func Compile(data []byte, opts ...Option) (*Schema, error) {
	cfg := config{formats: true, location: defaultLocation}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	doc, err := jsonvalue.Decode(data)
	if err != nil {
		return nil, fmt.Errorf("jsonschemav5: the schema is not valid JSON: %w", err)
	}
	s := &Schema{maxDepth: cfg.maxDepth}
	docs := schema.Docs{}
	loc := cfg.location
	if i := strings.IndexByte(loc, '#'); i >= 0 {
		loc = loc[:i]
	}
	record(docs, loc, doc)
	c := jsonschema.NewCompiler()
	c.AssertFormat = cfg.formats
	c.LoadURL = func(u string) (io.ReadCloser, error) {
		if cfg.loader == nil {
			return nil, fmt.Errorf("no loader for %s (see WithLoader)", u)
		}
		r, err := cfg.loader(u)
		if err != nil {
			return nil, err
		}
		defer r.Close()
		data, err := io.ReadAll(r)
		if err != nil {
			return nil, err
		}
		if d, err := jsonvalue.Decode(data); err == nil {
			record(docs, u, d)
		}
		return io.NopCloser(bytes.NewReader(data)), nil
	}
	if cfg.hook != nil {
		cfg.hook(c)
	}
	if err := c.AddResource(loc, bytes.NewReader(data)); err != nil {
		return nil, fmt.Errorf("jsonschemav5: %w", err)
	}
	sch, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("jsonschemav5: the schema does not compile: %s%w", notRE2(docs), compileError(err))
	}
	s.sch, s.locs, s.docs = sch, schema.Index(sch, read), docs
	if cfg.typos {
		s.typos = schema.NearMisses(sch, read)
	}
	return s, nil
}

// compileError spells out the meta-schema's reasons, which the library's
// Error keeps to the first.
func compileError(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var b strings.Builder
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			fmt.Fprintf(&b, "\n- at '%s': %s", e.InstanceLocation, e.Message)
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	return fmt.Errorf("%w%s", err, b.String())
}

// notRE2 names, for the error of a schema that does not compile, the
// first pattern (pattern or a patternProperties key) of docs that Go's
// regexp does not compile, with what to do about it; "" when there is
// none. A "pattern" member that is not a keyword (inside a const) may be
// named too: it only words an error there already is.
func notRE2(docs schema.Docs) string {
	var bad []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if p, ok := x.(string); ok && k == "pattern" {
					if _, err := regexp.Compile(p); err != nil {
						bad = append(bad, p)
					}
				}
				if m, ok := x.(map[string]any); ok && k == "patternProperties" {
					for p := range m {
						if _, err := regexp.Compile(p); err != nil {
							bad = append(bad, p)
						}
					}
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	for _, doc := range docs {
		walk(doc)
	}
	if len(bad) == 0 {
		return ""
	}
	slices.Sort(bad)
	return fmt.Sprintf("the pattern %q is not a Go regular expression: version 5 compiles patterns with Go's regexp (RE2: no lookaround, no backreferences), while JSON Schema's are ECMAScript; jsonschemav6 reads them: ", bad[0])
}

// record keeps a schema document in docs under its URL and, when it has
// one, its $id, which version 5 uses as its locations' base.
func record(docs schema.Docs, u string, doc any) {
	docs[u] = doc
	obj, ok := doc.(map[string]any)
	if !ok {
		return
	}
	for _, key := range []string{"$id", "id"} {
		id, ok := obj[key].(string)
		if !ok {
			continue
		}
		base, err1 := url.Parse(u)
		ref, err2 := url.Parse(id)
		if err1 == nil && err2 == nil {
			abs := base.ResolveReference(ref)
			abs.Fragment = ""
			docs[abs.String()] = doc
		}
	}
}

// FromCompiled wraps a schema compiled with the library directly. Its issues
// carry every constraint; bounds are written from the library's exact values,
// since the documents are not known. Instances are held to
// issues.DefaultMaxDepth (see WithMaxDepth).
func FromCompiled(sch *jsonschema.Schema) *Schema {
	return &Schema{sch: sch, locs: schema.Index(sch, read)}
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

// AppendValidate is Validate appending the issues to dst, so that a server
// can reuse its list; a valid instance (without near misses, with
// WithTypos) returns dst as it was. A call appends at most 1,000 issues
// (and as many inside a union's branches or a key's issues); past them one
// issue at the end counts the others in its Omitted. The issues are the
// caller's own: changing them (their paths, allowed names and values …)
// changes nothing another call returns. Their Input is the value found in
// instance, not a copy.
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
// santhosh-tekuri/jsonschema v5 as the library returns it, where the
// engine is built:
//
//	selfheal.New(selfheal.WithAdapters(jsonschemav5.Errors))
//
// Version 5's errors carry no values, so each issue says what the
// library's message says; a Schema's Validate says more. The issues of a
// Schema need no adapter.
var Errors issues.Adapter = appendOwned

// appendOwned is appendRaw with the issues the caller's own: they may
// share the library's slices.
func appendOwned(dst issues.List, err error) (issues.List, bool) {
	list, ok := appendRaw(dst, err)
	return schema.Own(dst, list), ok
}

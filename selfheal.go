package selfheal

import (
	"errors"
	"sync"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// Engine turns validation failures into the validation_error a model reads.
// It is immutable once built and safe for concurrent use; derive variants
// with Locale and WithTemplates.
type Engine struct {
	opts     formatter.Options
	adapters []issues.Adapter
	f        *formatter.Formatter
	// byLocale memoizes the engines Locale derives, one per catalog.
	byLocale *sync.Map
}

// Option configures an Engine; the With functions below make one.
type Option interface{ apply(*config) }

// config is what the options set: the formatter's options and the
// adapters.
type config struct {
	fmt      formatter.Options
	adapters []issues.Adapter
}

// option is an Option that sets fields of the formatter's options.
type option func(*formatter.Options)

func (f option) apply(c *config) { f(&c.fmt) }

// adaptersOption is the Option of WithAdapters.
type adaptersOption []issues.Adapter

func (a adaptersOption) apply(c *config) { c.adapters = append(c.adapters, a...) }

// WithAdapters lets the engine read the raw errors of the validation
// libraries whose adapters are given, tried in the order given:
//
//	selfheal.New(selfheal.WithAdapters(validatorv10.Errors, jsondecode.Errors))
//
// makes an engine that words a validator.ValidationErrors and an
// encoding/json decode error precisely. An engine reads only the raw
// errors of the adapters it was given, so a program links only the
// validation libraries it imports; an error an adapter produced (an
// issues.Carrier, such as validatorv10.Bind's or jsondecode.Decode's)
// needs none. Several WithAdapters add up.
func WithAdapters(adapters ...issues.Adapter) Option {
	return adaptersOption(append([]issues.Adapter{}, adapters...))
}

// WithLocale sets the language of the messages: a BCP 47 tag ("ja", "ja-JP")
// or an Accept-Language value. Anything unknown gives English.
func WithLocale(tag string) Option {
	return option(func(o *formatter.Options) { o.Catalog = catalog.Match(tag) })
}

// WithExamples turns the valid examples after format expectations on or off
// (on by default).
func WithExamples(on bool) Option {
	return option(func(o *formatter.Options) { o.Examples = on })
}

// WithMaxIssues caps the lines in one validation_error (20 by default); the
// rest are counted in a final note. A negative value means no cap.
func WithMaxIssues(n int) Option {
	return option(func(o *formatter.Options) { o.MaxIssues = n })
}

// WithMaxBytes caps the bytes of field lines in one validation_error (4 KiB
// by default). A negative value means no cap.
func WithMaxBytes(n int) Option {
	return option(func(o *formatter.Options) { o.MaxBytes = n })
}

// WithMaxValueRunes sets where a value shown to the model is cut (60
// characters by default).
func WithMaxValueRunes(n int) Option {
	return option(func(o *formatter.Options) { o.MaxValueRunes = n })
}

// WithRedact sets the field names whose values are never shown, replacing
// the default list: password, passwd, pwd, secret, token, api_key, apikey,
// authorization, cookie, session, private_key, card_number, cardnumber,
// cvv, cvc, ssn and credential (to extend it, pass these with yours). A
// name matches as whole words anywhere in a key (apiKey, access_token,
// user.password). With no names, nothing is redacted.
func WithRedact(names ...string) Option {
	return option(func(o *formatter.Options) { o.Redact = append([]string{}, names...) })
}

// New returns an Engine. With no options it words in English, shows
// examples, and keeps to 20 issues and 4 KiB.
func New(opts ...Option) *Engine {
	c := config{fmt: formatter.DefaultOptions()}
	for _, opt := range opts {
		if opt != nil {
			opt.apply(&c)
		}
	}
	if c.fmt.Catalog == nil {
		c.fmt.Catalog = catalog.Default()
	}
	return newEngine(c.fmt, c.adapters)
}

func newEngine(o formatter.Options, adapters []issues.Adapter) *Engine {
	return &Engine{opts: o, adapters: adapters, f: formatter.New(o), byLocale: new(sync.Map)}
}

// Locale returns an engine like e that words in the language that best fits
// tag (a BCP 47 tag or an Accept-Language value), for answering each client
// in its own language. The result is cached, so calling it per request is
// cheap.
func (e *Engine) Locale(tag string) *Engine {
	cat := catalog.Match(tag)
	if cat == e.opts.Catalog {
		return e
	}
	if v, ok := e.byLocale.Load(cat); ok {
		return v.(*Engine)
	}
	o := e.opts
	o.Catalog = cat
	v, _ := e.byLocale.LoadOrStore(cat, newEngine(o, e.adapters))
	return v.(*Engine)
}

// WithTemplates returns an engine like e whose messages for the given keys
// are replaced, keyed as in the catalog files ("too_small.string": "…").
// An unknown key or a template with an unknown placeholder is an error now,
// at setup, rather than a broken line in front of a model.
func (e *Engine) WithTemplates(overrides map[string]string) (*Engine, error) {
	cat, err := (*catalog.Catalog)(e.opts.Catalog).With(overrides, catalog.Default())
	if err != nil {
		return nil, err
	}
	o := e.opts
	o.Catalog = cat
	return newEngine(o, e.adapters), nil
}

// Issues returns the normalized issues of err, or nil when err is nil or
// not a validation failure the engine understands. It accepts an
// issues.Carrier anywhere in err's chain (an issues.List, every adapter's
// error, a user's own error type with an Issues method) and the raw errors
// of the libraries whose adapters the engine was given (see WithAdapters).
// Without validatorv10.Errors, each failure of go-playground/validator is
// still a line naming the tag it failed, and without jsondecode.Errors an
// encoding/json error is one line with the library's own message; the raw
// errors of santhosh-tekuri/jsonschema need jsonschemav6.Errors or
// jsonschemav5.Errors.
//
// An issues.List passed as err comes back as it is. Any other issues are
// the caller's own: changing them changes nothing another call returns.
func (e *Engine) Issues(err error) issues.List {
	if list, ok := err.(issues.List); ok {
		return list
	}
	list := e.listOf(err)
	issuesx.Own(list)
	return list
}

// listOf is Issues without owning the issues: they may share slices with
// an adapter's caches, for a caller that only reads them.
func (e *Engine) listOf(err error) issues.List {
	if err == nil {
		return nil
	}
	// The direct case first: errors.As would move its target to the heap.
	if list, ok := err.(issues.List); ok {
		return list
	}
	if list, ok := e.appendIssues(nil, err); ok && len(list) > 0 {
		return list
	}
	return nil
}

// appendIssues appends the issues of err to dst: the engine's adapters
// first, in their order (an adapter may word its own errors better than
// their Issues method: validatorv10.ErrorsWith words a server's tags),
// then an error that carries its issues, a carrier deeper in err's chain
// (errors.As, last because it costs an allocation on every error it does
// not find), and the engine's own plain readings of validator's and
// encoding/json's errors.
func (e *Engine) appendIssues(dst issues.List, err error) (issues.List, bool) {
	for _, a := range e.adapters {
		if list, ok := a(dst, err); ok {
			return list, true
		}
	}
	if c, ok := err.(issues.Carrier); ok {
		return append(dst, c.Issues()...), true
	}
	var c issues.Carrier
	if errors.As(err, &c) {
		return append(dst, c.Issues()...), true
	}
	if list, ok := appendFieldErrors(dst, err); ok {
		return list, true
	}
	return appendJSONErrors(dst, err)
}

// Format returns the text to send back for a failed call of action: the
// validation_error for a validation failure; for any other error an
// INTERNAL_ERROR tool_error that does not leak the error's text (see
// envelope.Wrap); "" for a nil error.
func (e *Engine) Format(action string, err error) string {
	if err == nil {
		return ""
	}
	// The text is built in a pooled buffer and copied once: built in a
	// fresh one, it would grow four or five times on a failed call.
	p := formatPool.Get().(*[]byte)
	buf := e.Append((*p)[:0], action, err)
	s := string(buf)
	if cap(buf) <= maxPooledText {
		clear(buf) // as listPool: keep no value a model sent alive
		*p = buf[:0]
		formatPool.Put(p)
	}
	return s
}

// formatPool holds Format's buffers; one that grew past maxPooledText (a
// call with a large budget) is left to the collector.
var formatPool = sync.Pool{New: func() any { b := make([]byte, 0, 2048); return &b }}

const maxPooledText = 64 << 10

// Append is Format appending to dst. With a reused buffer it allocates
// nothing once warm beyond what an adapter builds (for a validator error,
// each issue's path): the issues are built into a pooled list.
func (e *Engine) Append(dst []byte, action string, err error) []byte {
	if err == nil {
		return dst
	}
	if list, ok := err.(issues.List); ok {
		return e.appendList(dst, action, err, list)
	}
	p := listPool.Get().(*issues.List)
	list, _ := e.appendIssues((*p)[:0], err)
	dst = e.appendList(dst, action, err, list)
	clear(list) // let the pooled list keep no value a model sent alive
	if cap(list) > maxPooledIssues {
		list = nil // a huge failure's list is left to the collector
	}
	*p = list[:0]
	listPool.Put(p)
	return dst
}

// appendList appends the answer for err, whose issues are list.
func (e *Engine) appendList(dst []byte, action string, err error, list issues.List) []byte {
	if len(list) == 0 {
		return append(dst, envelope.Wrap(err).String()...)
	}
	return e.f.AppendValidation(dst, action, list)
}

// listPool holds Append's lists.
var listPool = sync.Pool{New: func() any { return new(issues.List) }}

// maxPooledIssues keeps one huge failure from pinning its list in the pool.
const maxPooledIssues = 256

// Result returns the validation_error for err as a value, for callers
// that send fields separately or add a section, and the issues it shows,
// for a result that carries them beside the text (an MCP result's
// structuredContent, as the module's MCP integrations send it): copies in
// the order of the text's lines, without the values sent (a value may be
// a secret; the text already shows every value that may be shown), and
// within the engine's issue and byte budgets whatever the model sent. Both
// come from one rendering. When err is nil or not a validation failure,
// they are the zero ValidationError (no fields) and nil; use Format for
// those.
func (e *Engine) Result(action string, err error) (envelope.ValidationError, issues.List) {
	list := e.listOf(err)
	if len(list) == 0 {
		return envelope.ValidationError{}, nil
	}
	fields, more, shown := e.f.Fields(list)
	return envelope.ValidationError{Action: action, Fields: fields, More: more, Recovery: e.f.Recovery()}, shown
}

// ServerMessage returns msg, what a tool server said when it rejected a
// call, as a validation_error shows it beside the engine's explanation
// (envelope.ValidationError.ServerMessage): on one line, controls shown
// escaped, whole up to the engine's byte budget (WithMaxBytes, 4 KiB by
// default: as much room as the field lines), else cut there with how much
// was cut stated in the engine's language ("… (2310 characters cut)").
func (e *Engine) ServerMessage(msg string) string {
	return e.f.ServerMessage(msg, 0)
}

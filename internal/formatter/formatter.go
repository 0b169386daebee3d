package formatter

import (
	"math"
	"slices"
	"sync"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/internal/templates"
	"github.com/selfheal/selfheal/internal/xmlenc"
	"github.com/selfheal/selfheal/issues"
)

// Defaults of the output budget.
const (
	DefaultMaxIssues     = 20
	DefaultMaxBytes      = 4 << 10
	DefaultMaxValueRunes = 60
	// maxListed is how many allowed keys or values a line lists before
	// saying how many more there are.
	maxListed = 10
)

// Options configure a Formatter. The zero value of each field means its
// default, except Examples: use DefaultOptions to start from the defaults.
type Options struct {
	// Catalog is the wording; nil means English.
	Catalog *catalog.Catalog
	// Examples adds a valid example to format expectations.
	Examples bool
	// MaxIssues is the most lines written; the rest are counted in a final
	// note. Zero means DefaultMaxIssues, negative means no limit.
	MaxIssues int
	// MaxBytes is the most bytes of field lines written. Zero means
	// DefaultMaxBytes, negative means no limit.
	MaxBytes int
	// MaxValueRunes is where a value shown to the model is cut. Zero means
	// DefaultMaxValueRunes.
	MaxValueRunes int
	// Redact lists the field names whose values are never shown; nil means
	// DefaultRedact, an empty non-nil slice means none.
	Redact []string
}

// DefaultOptions returns the defaults: English, examples on, 20 issues,
// 4 KiB, values cut at 60 characters, the default sensitive names.
func DefaultOptions() Options { return Options{Examples: true} }

// Formatter turns issues into the lines of a validation_error. It is
// immutable and safe for concurrent use.
type Formatter struct {
	cat       *catalog.Catalog
	msgs      map[string]*templates.Message
	examples  bool
	maxIssues int
	maxBytes  int
	maxRunes  int
	redact    *redactor
	units     [len(units)][smallCounts]string
	recovery  string
	pool      sync.Pool
}

// New returns a Formatter with the given options.
func New(o Options) *Formatter {
	if o.Catalog == nil {
		o.Catalog = catalog.Default()
	}
	f := &Formatter{cat: (*catalog.Catalog)(o.Catalog), examples: o.Examples, maxIssues: o.MaxIssues,
		maxBytes: o.MaxBytes, maxRunes: o.MaxValueRunes}
	switch {
	case f.maxIssues == 0:
		f.maxIssues = DefaultMaxIssues
	case f.maxIssues < 0:
		f.maxIssues = math.MaxInt
	}
	switch {
	case f.maxBytes == 0:
		f.maxBytes = DefaultMaxBytes
	case f.maxBytes < 0:
		f.maxBytes = math.MaxInt
	}
	if f.maxRunes <= 0 {
		f.maxRunes = DefaultMaxValueRunes
	}
	if o.Redact == nil {
		o.Redact = defaultRedact
	}
	f.redact = newRedactor(o.Redact)
	f.msgs = resolve(f.cat, catalog.Default())
	if m := f.msg("recovery", "", ""); m != nil {
		f.recovery = m.Template(templates.Other).Source()
	}
	s := &state{f: f}
	for i, u := range units {
		for n := range int64(smallCounts) {
			f.units[i][n] = string(s.appendMessage(nil, f.msg("unit", u, ""), n))
		}
	}
	f.pool.New = func() any { return &state{f: f} }
	return f
}

// Recovery returns the closing instruction in the formatter's language.
func (f *Formatter) Recovery() string { return f.recovery }

// AppendValidation appends the whole validation_error for the issues to dst.
// Once its buffers are warm it allocates nothing for the common codes.
func (f *Formatter) AppendValidation(dst []byte, action string, list issues.List) []byte {
	s := f.get()
	defer f.put(s)
	dst = xmlenc.AppendValidationOpen(dst, action)
	s.out = dst
	s.fields = nil
	s.run(list)
	dst = s.out
	more := ""
	if s.omitted > 0 {
		more = string(s.appendMore(s.line[:0], s.omitted))
	}
	return xmlenc.AppendValidationClose(dst, more, nil, f.recovery)
}

// Fields returns the field lines for the issues, the note on omitted
// issues ("" when none were), and the issues as a result carries them
// beside the text (see bounded.go), made by the same pass: rendering the
// text twice, once for the lines and once for the issues, was a tenth of
// a bad call's cost at dispatch in the go-sdk integration (DESIGN
// section 5: ≤ 1 × the SDK's own check).
func (f *Formatter) Fields(list issues.List) (fields []envelope.Field, more string, shown issues.List) {
	s := f.get()
	defer f.put(s)
	s.fields = make([]envelope.Field, 0, min(len(list), f.maxIssues))
	s.shown = make(issues.List, 0, min(len(list), f.maxIssues))
	s.out = s.buf[:0] // the fields as the envelope writes them, then dropped
	s.run(list)
	s.buf = s.out[:0]
	if s.omitted > 0 {
		more = string(s.appendMore(s.line[:0], s.omitted))
	}
	fields, shown = s.fields, s.shown
	s.fields, s.shown = nil, nil
	return fields, more, f.fit(shown)
}

// appendLine appends the line of one issue, unescaped and without its
// field name, to dst: the text a model reads for that issue.
func (f *Formatter) appendLine(dst []byte, is *issues.Issue) []byte {
	s := f.get()
	defer f.put(s)
	return s.appendIssue(dst, is, nil)
}

func (f *Formatter) get() *state { return f.pool.Get().(*state) }

func (f *Formatter) put(s *state) {
	const keep = 64 << 10 // don't let one huge call pin memory in the pool
	if cap(s.name) > keep || cap(s.line) > keep || cap(s.buf) > keep {
		return
	}
	s.out, s.frame, s.suggFor, s.uni, s.shown = nil, frame{}, nil, issues.Issue{}, nil
	clear(s.sugg)
	s.mg.reset()
	f.pool.Put(s)
}

// state is the per-call scratch space, pooled so that a warm formatter
// renders without allocating.
type state struct {
	f *Formatter

	// Across the lines of a call (run, emitLine).
	out     []byte // the fields written so far, as the envelope holds them
	buf     []byte // Fields' out
	fields  []envelope.Field
	name    []byte // the current field name
	line    []byte // the current line, unescaped
	prevAt  int    // where the previous field starts in out
	path    issues.Path
	cut     issues.Path // a path with its long keys cut (appendName)
	order   []int       // indexes of the issues with lines, in path order
	lines   int
	bytes   int
	omitted int

	frame

	// What placeholders render with: the key suggestions of suggFor, the
	// multiples (see multiples).
	suggFor *issues.Issue
	sugg    []string
	lower   []byte
	upper   []byte
	value   []byte // {value}: what the message around a value shows
	// {field}: the other field of a cross-field check, or (fieldSet) the
	// fields of a condition, rendered into cond and pair.
	field    []byte
	fieldSet bool
	cond     []byte
	pair     []byte
	scratch  []byte
	// mg: the lines that merge a misspelt key with a missing field.
	mg mergeState
	// nesting counts the lines being worded inside one another.
	nesting int
	// uni is the issue of a union's line when no alternative's type
	// matches (see typesOfUnion), uniKeys the scratch space of its keys.
	uni     issues.Issue
	uniKeys []string
	// shown, when not nil, collects the issue of each line, and fields
	// its name and text (Fields).
	shown issues.List
}

// frame is what the placeholders of the message being rendered read. A
// nested message saves and restores it whole.
type frame struct {
	is     *issues.Issue
	inner  *issues.Issue
	hidden bool // the issue's field is sensitive
	tpl    *templates.Template
	count  int64
}

// run writes (or collects) the lines of list in path order, dropping exact
// duplicates and stopping at the budget.
func (s *state) run(list issues.List) {
	s.lines, s.bytes, s.omitted = 0, 0, 0
	s.order = s.order[:0]
	// Issues an adapter counted past issuesx.BuildLimit without building
	// them are not lines, but they are more issues.
	counted := 0
	unknown := false // a key was sent that is not allowed: merges may be
	for i := range list {
		unknown = unknown || list[i].Code == issues.UnrecognizedKeys
		if list[i].Check == issuesx.CheckOmitted {
			counted += issuesx.OmittedCount(&list[i])
			continue
		}
		s.order = append(s.order, i)
	}
	if s.mg.list = s.mg.list[:0]; unknown {
		s.findMerges(list)
	}
	if len(s.mg.list) > 0 {
		s.order = slices.DeleteFunc(s.order, func(i int) bool { return s.mergedAway(list, i) })
	}
	slices.SortStableFunc(s.order, func(a, b int) int { return issuesx.Compare(&list[a], &list[b]) })
	for n, i := range s.order {
		handled, ok := false, false
		if len(s.mg.list) > 0 {
			handled, ok = s.emitMerged(list, i)
		}
		if !handled {
			ok = s.emitIssue(&list[i])
		}
		if !ok {
			s.omitted = len(s.order) - n + counted
			return
		}
	}
	s.omitted = counted
}

// emitIssue writes the lines of one issue: one line, or for a union the
// lines of its closest alternative (see emitBranch), or when no
// alternative's type matches the value one line naming the types they
// expect. It reports false when the budget is spent.
func (s *state) emitIssue(is *issues.Issue) bool {
	switch is.Code {
	case issues.InvalidUnion:
		bi, typed, sure := nearmiss.Chosen(is)
		if bi < 0 {
			break
		}
		if !typed {
			if u, ok := typesOfUnion(is, &s.uniKeys); ok {
				s.uni = u
				return s.emitLine(&is.Path, &s.uni, nil)
			}
		}
		return s.emitBranch(is, is.Branches[bi], sure)
	case issues.InvalidKey, issues.InvalidElement:
		if len(is.Issues) > 1 {
			for i := range is.Issues {
				if is.Issues[i].Check == issuesx.CheckOmitted {
					continue
				}
				if !s.emitLine(&is.Path, is, &is.Issues[i]) {
					return false
				}
			}
			return true
		}
	}
	return s.emitLine(&is.Path, is, nil)
}

// emitBranch writes the lines of best, the alternative of union chosen:
// its discriminator first (it says which alternative the others belong
// to), then the rest in path order, merged as at the top. When the choice
// is sure (see nearmiss.Chosen), each line is the issue's own; otherwise it
// says it is the closest alternative's.
func (s *state) emitBranch(union *issues.Issue, best []issues.Issue, sure bool) bool {
	outer := s.mg.list
	s.mg.list = nil
	s.findMerges(best)
	defer func() { s.mg.list = outer }()
	// The library reports an object's properties in no fixed order: the
	// lines go in path order, as the top's do.
	order := make([]int, len(best))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return issuesx.Compare(&best[a], &best[b]) })
	for pass := range 2 {
		for _, i := range order {
			b := &best[i]
			if b.Check == issuesx.CheckOmitted || nearmiss.Discriminates(b, union) != (pass == 0) {
				continue
			}
			if len(s.mg.list) > 0 {
				if s.mergedAway(best, i) {
					continue
				}
				if handled, ok := s.emitMerged(best, i); handled {
					if !ok {
						return false
					}
					continue
				}
			}
			var ok bool
			switch {
			case sure || b.Code == issues.InvalidUnion:
				// A recursive schema nests unions: the line is the
				// innermost one's, at the field where the value failed.
				ok = s.emitIssue(b)
			default:
				ok = s.emitLine(&b.Path, union, b)
			}
			if !ok {
				return false
			}
		}
	}
	return true
}

// emitLine writes the field of is (with inner as its inner issue, if any)
// at path into s.out, as the envelope shows it. It is the one place lines
// are made: the budgets and the dropping of repeated lines are decided
// here, on the bytes the envelope holds. It reports false when the budget
// is spent.
func (s *state) emitLine(path *issues.Path, is, inner *issues.Issue) bool {
	if s.lines >= s.f.maxIssues {
		return false
	}
	start := len(s.out)
	p := *path
	if is.Code == issues.InvalidElement && isPathKey(is.Key) {
		// The element's own path names the field, not its container's.
		s.path = append(append(s.path[:0], p...), is.Key)
		p = s.path
	}
	s.name = s.appendName(s.name[:0], p)
	s.line = s.appendIssue(s.line[:0], is, inner)
	s.out = xmlenc.AppendField(s.out, s.name, s.line)
	clear(s.path)
	field := s.out[start:]
	switch {
	case s.lines > 0 && string(s.out[s.prevAt:start]) == string(field):
		// The same line for the same field says nothing new.
		s.out = s.out[:start]
		return true
	case s.bytes+len(field) > s.f.maxBytes && s.lines > 0:
		s.out = s.out[:start]
		return false
	}
	s.bytes += len(field)
	s.prevAt = start
	s.lines++
	if s.shown != nil {
		s.fields = append(s.fields, envelope.Field{Name: string(s.name), Text: string(s.line)})
		s.shown = append(s.shown, lineIssue(is, inner))
		s.bound(&s.shown[len(s.shown)-1], 0) // now: the next merged line reuses is's lists
	}
	return true
}

func (s *state) appendMore(dst []byte, n int) []byte {
	return s.appendMessage(dst, s.m("more"), int64(n))
}

// isPathKey reports whether v can stand in a path as a key or an index.
func isPathKey(v any) bool {
	switch v.(type) {
	case string, int, int64, uint64:
		return true
	}
	return false
}

// typesOfUnion is the issue of a union each of whose alternatives refuses
// the value by type: an invalid_type at the union's path expecting every
// type they name, an object last when it comes with the keys they all
// require ("Expected a string or an object with 'property','value'"): one
// alternative's type alone would hide the others. scratch holds the keys.
func typesOfUnion(union *issues.Issue, scratch *[]string) (issues.Issue, bool) {
	var want issues.Types
	keys, objects := (*scratch)[:0], 0
	defer func() { *scratch = keys[:0] }()
	for _, br := range union.Branches {
		found := false
		for j := range br {
			b := &br[j]
			if b.Code == issues.InvalidType && !b.Absent && len(b.Path) == len(union.Path) && b.Expected != 0 {
				want, found = want.Or(b.Expected), true
				if b.Expected.Has(issues.TypeObject) {
					if objects == 0 {
						keys = append(keys, b.Keys...)
					} else {
						keys = slices.DeleteFunc(keys, func(k string) bool { return !slices.Contains(b.Keys, k) })
					}
					objects++
				}
				break
			}
		}
		if !found && len(br) > 0 {
			return issues.Issue{}, false
		}
	}
	if want == 0 {
		return issues.Issue{}, false
	}
	if len(keys) > 0 {
		// The keys follow the object: it goes last.
		var moved issues.Types
		for t := range want.All() {
			if t != issues.TypeObject {
				moved = moved.Or(t)
			}
		}
		want = moved.Or(issues.TypeObject)
	}
	is := issues.Issue{Code: issues.InvalidType, Path: union.Path, Input: union.Input, Expected: want,
		Source: union.Source}
	if len(keys) > 0 {
		is.Keys = keys
	}
	return is, true
}

package formatter

import (
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/internal/templates"
	"github.com/selfheal/selfheal/internal/xmlenc"
	"github.com/selfheal/selfheal/issues"
)

// An adapter that knows where its issues come from hands their sites
// beside them (see issuesx.Site): a struct field's failed tag gives an
// issue with the same facts call after call, only the value differs. For
// such an issue the formatter works out once, and keeps on the site, what
// the line of every issue with those facts shares: the field name, whether
// the field is sensitive, the message the rules choose and its template
// with everything but the value rendered and its text escaped. A line is
// then that template rendered with the value, with no plan key to build or
// rule to run.
//
// An issue worded from its value too (see wordedByValue: a quoted number,
// a did-you-mean, the items repeated, a misspelt key) runs the rules on
// every call, and the site keeps one line per message they choose: the
// rest of the line is the message's, from the facts.
//
// The line is kept on the site, owned by what the adapter compiled, not in
// a cache: it is the site's, and it is not checked against each issue's
// facts. An adapter records a site only beside an issue with the site's
// facts, and the issues go from the adapter to the formatter unchanged
// (Engine.Append is their only path); validatorv10's tests hold it to that
// for every tag. What the line depends on beyond the facts, the kind of the
// value, is checked.

// siteLine is what a Formatter keeps on a site.
type siteLine struct {
	f      *Formatter
	kind   kind // the kind of value it was worked out for
	hidden bool
	tpl    *templates.Template // the message's template in its form
	// field is tpl with everything but the value rendered, as the
	// envelope holds it: the field's start and end included, its literal
	// text escaped once here, so that a line escapes only its value. Nil
	// when there is no message, or when its text cannot be escaped apart
	// from the value before it (see AppendTextAnywhere): such a line is
	// worded the usual way, and the site line only gives its sort key.
	field *templates.Template
	count int64
	key   uint64 // the sort key of the site's path
	// byValue marks a line of an issue worded from its value too (see
	// wordedByValue), kept for the message id the rules chose.
	byValue bool
	id      msgID
}

// wordedByFacts reports whether the rules word is from its facts and the
// kind of its value alone, never from the value itself: the codes whose
// rules read nothing else (see rules), without the facts that bring in
// other fields, inner issues or lists.
func wordedByFacts(is *issues.Issue) bool {
	switch is.Code {
	case issues.TooSmall, issues.TooBig, issues.InvalidFormat:
	case issues.InvalidType:
		if !is.Absent { // a value sent: a quoted number is worded from it
			return false
		}
	default:
		return false
	}
	return is.Ref == nil && is.When == nil && is.Key == nil && is.Check == "" && is.Omitted == 0 &&
		len(is.Keys) == 0 && len(is.Allowed) == 0 && len(is.Values) == 0 && len(is.Issues) == 0 && len(is.Branches) == 0
}

// wordedByValue reports whether the rules word is (with inner as its
// inner issue) from its facts, the kind of its value and the value itself,
// through the message they choose alone: a type missed by a value sent (a
// quoted number, a quoted boolean), an allowed value missed (a
// did-you-mean), items repeated (the items a unique check found are what
// was sent, never a plan's: see allowedOf), a misspelt key merged with the
// missing field it stands for (see emitMerged: the key is what was sent;
// the field's name, its path and type are the missing field's site's). The
// choice is made on every call; the rest of the line is the message's,
// from the facts.
func wordedByValue(is, inner *issues.Issue) bool {
	if is.Ref != nil || is.When != nil || is.Key != nil || is.Omitted != 0 || len(is.Issues) > 0 || len(is.Branches) > 0 {
		return false
	}
	switch {
	case is.Code == issues.InvalidType && !is.Absent, is.Code == issues.InvalidValue:
		return is.Check == "" && len(is.Keys) == 0 && len(is.Allowed) == 0
	case is.Code == issues.Custom && is.Check == issues.CheckUnique:
		return len(is.Keys) == 0 && len(is.Allowed) == 0
	case is.Code == issues.UnrecognizedKeys && inner != nil:
		return is.Check == ""
	}
	return false
}

// siteLine returns the line s.f keeps on site for is, working it out on
// the first issue it words there; nil when is must be worded the usual
// way, or is worded from its value (see valueLine).
func (s *state) siteLine(site *issuesx.Site, is *issues.Issue) *siteLine {
	k := kindOf(is.Input)
	for _, l := range site.Lines() {
		if sl := l.(*siteLine); sl.f == s.f && !sl.byValue {
			// Made for an issue worded by its facts: so is is, which has them.
			if sl.kind == k {
				return sl
			}
			return nil // kept for another kind: the first one keeps the site
		}
	}
	if !wordedByFacts(is) || site.Full() {
		// Kept by other formatters: worded the usual way, without allocating.
		return nil
	}
	hidden := s.sensitive(is.Path)
	sl := s.newSiteLine(is, nil, k, hidden, s.chooseAt(is, nil, hidden))
	site.AddLine(sl)
	return sl
}

// valueLine returns the line s.f keeps on site for is (with inner as its
// inner issue), an issue worded from its value too, and the message the
// rules choose for it; nil when is must be worded the usual way (it has no
// site, or Fields collects the lines, which site lines do not write). It
// runs the rules, as appendIssue would: what they work out from the value
// (a suggestion) is memoized for the line's placeholders.
func (s *state) valueLine(site *issuesx.Site, is, inner *issues.Issue) *siteLine {
	if site == nil || s.collect || !wordedByValue(is, inner) {
		return nil
	}
	k := kindOf(is.Input)
	lines := site.Lines()
	hidden, known := false, false
	for _, l := range lines {
		if sl := l.(*siteLine); sl.f == s.f {
			hidden, known = sl.hidden, true // the site's path: the same for every line
			break
		}
	}
	if !known {
		if site.Full() {
			return nil // kept by other formatters: the rules run once, as usual
		}
		hidden = s.sensitive(is.Path)
	}
	id := s.chooseAt(is, inner, hidden)
	for _, l := range lines {
		if sl := l.(*siteLine); sl.f == s.f && sl.byValue && sl.kind == k && sl.id == id {
			return sl
		}
	}
	if site.Full() {
		return nil
	}
	sl := s.newSiteLine(is, inner, k, hidden, id)
	sl.byValue = true
	site.AddLine(sl)
	return sl
}

// chooseAt runs the rules for is, a site's issue with inner as its inner
// issue, whose field is sensitive when hidden says so.
func (s *state) chooseAt(is, inner *issues.Issue, hidden bool) msgID {
	saved := s.frame
	s.is, s.inner, s.hidden = is, inner, hidden
	id := s.choose(is)
	s.frame = saved
	return id
}

// newSiteLine works out the line of is (with inner as its inner issue),
// whose field is sensitive when hidden says so, in message id.
func (s *state) newSiteLine(is, inner *issues.Issue, k kind, hidden bool, id msgID) *siteLine {
	saved := s.frame
	defer func() { s.frame = saved }()
	sl := &siteLine{f: s.f, kind: k, hidden: hidden, id: id}
	s.is, s.inner, s.hidden = is, inner, hidden
	sl.key = sortKey(is.Path)
	sl.count = countOf(id, is)
	m := s.m(id)
	if m == nil {
		return sl // no field: worded the usual way, as an empty line
	}
	sl.tpl, _ = s.template(m, sl.count)
	plan := sl.tpl
	if planned(sl.tpl) {
		s.tpl, s.count = sl.tpl, sl.count
		plan = s.partial(sl.tpl, allowedOf(sl.tpl, is))
	}
	open := xmlenc.AppendFieldOpen(nil, s.appendName(nil, is.Path))
	sl.field = plan.Rewritten(string(open), xmlenc.FieldClose, xmlenc.AppendTextAnywhere)
	return sl
}

// appendSiteField appends the field line of is (with inner as its inner
// issue), as AppendField writes it, from sl.field: only the value is
// escaped here.
func (s *state) appendSiteField(dst []byte, is, inner *issues.Issue, sl *siteLine) []byte {
	saved := s.enterSite(is, inner, sl)
	dst = sl.field.Append(dst, (*escaping)(s))
	s.frame = saved
	return dst
}

// enterSite sets the frame the placeholders of is's line (with inner as
// its inner issue) read from sl, and returns the frame it replaces.
func (s *state) enterSite(is, inner *issues.Issue, sl *siteLine) frame {
	saved := s.frame
	s.frame = frame{is: is, inner: inner, hidden: sl.hidden, tpl: sl.tpl, count: sl.count}
	return saved
}

// escaping is a state that fills a template's placeholders escaped, for a
// template whose literal text already is.
type escaping state

func (e *escaping) AppendPlaceholder(dst []byte, p templates.Placeholder) []byte {
	s := (*state)(e)
	start := len(dst)
	s.plainEnd = -1
	dst = s.AppendPlaceholder(dst, p)
	if s.plainAt == start && s.plainEnd == len(dst) {
		return dst // a string sent, known to need no escaping: not scanned again
	}
	dst, s.line = xmlenc.EscapeTail(dst, start, s.line)
	return dst
}

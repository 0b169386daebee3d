package schema

import "github.com/selfheal/selfheal/issues"

// A Failure is one failed keyword that makes one issue, as a version's
// converter reads it from its library's error and compiled schema: the
// input of the keyword table (see Sink.Keyword). A fact the converter does
// not know stays zero, and the issue says less.
type Failure struct {
	// Keyword is the keyword that failed ("minLength"); it names the
	// issue's source, "jsonschema:minLength".
	Keyword string
	// Path and Input are where the failure is and the value sent there.
	Path  issues.Path
	Input any
	// Types are the types allowed (type).
	Types issues.Types
	// Values are the values allowed (enum, const), or the item sent twice
	// (uniqueItems).
	Values []any
	// Want is what a string keyword asks for: the format, the pattern, the
	// content encoding or media type.
	Want string
	// Err is the library's reason a value fails its format or content, nil
	// when it gives none.
	Err error
	// Min and Max are the bounds the schema sets for the keyword, as
	// written: a length, count or number, or the counts of matching items
	// (contains). A size keyword words one of them, and is exact when the
	// two are equal.
	Min, Max issues.Number
	// Divisor is multipleOf's; its Min and Max are the least and greatest
	// multiples the schema's numeric bounds allow (see Multiples).
	Divisor issues.Number
	// Origin is the origin of a numeric bound: integer when the schema
	// allows integers only, else number.
	Origin string
}

// keyword is a row of the keyword table: the issue's code (and check,
// for a custom one) and which facts of a Failure it takes.
type keyword struct {
	code   issues.Code
	check  string
	takes  facts
	origin string // of a length or count (takes sizeFacts)
	source string // "jsonschema:" and the keyword, set by sourced
}

// facts says which facts of a Failure an issue takes.
type facts uint8

const (
	noFacts        facts = iota
	typeFacts            // Types as Expected
	valueFacts           // Values
	formatFacts          // Want as Format, Err as Message
	mediaFacts           // the same, Want a media type
	patternFacts         // Want as Pattern, of format "regex"
	sizeFacts            // Min or Max, by the code; exact when they are equal
	boundFacts           // Min or Max, by the code, and Origin; inclusive
	exclusiveFacts       // the same, exclusive
	divisorFacts         // Divisor, and Min and Max the multiples allowed, inclusive
	countFacts           // Min and Max, counts of matching items
	itemsFacts           // Max, the items an array may hold
)

// keywords is the table of the keywords whose failure makes one issue
// from its facts. The keywords that group others, that make an issue per
// missing property or unrecognized key, or whose issue holds the issues of
// other values (a union, a property name, a string's content) are the
// converters' own.
var keywords = sourced(map[string]keyword{
	"type":             {code: issues.InvalidType, takes: typeFacts},
	"enum":             {code: issues.InvalidValue, takes: valueFacts},
	"const":            {code: issues.InvalidValue, takes: valueFacts},
	"format":           {code: issues.InvalidFormat, takes: formatFacts},
	"pattern":          {code: issues.InvalidFormat, takes: patternFacts},
	"contentEncoding":  {code: issues.InvalidFormat, takes: formatFacts},
	"contentMediaType": {code: issues.InvalidFormat, takes: mediaFacts},
	"minLength":        {code: issues.TooSmall, takes: sizeFacts, origin: issues.OriginString},
	"maxLength":        {code: issues.TooBig, takes: sizeFacts, origin: issues.OriginString},
	"minItems":         {code: issues.TooSmall, takes: sizeFacts, origin: issues.OriginArray},
	"maxItems":         {code: issues.TooBig, takes: sizeFacts, origin: issues.OriginArray},
	"minProperties":    {code: issues.TooSmall, takes: sizeFacts, origin: issues.OriginObject},
	"maxProperties":    {code: issues.TooBig, takes: sizeFacts, origin: issues.OriginObject},
	"minimum":          {code: issues.TooSmall, takes: boundFacts},
	"exclusiveMinimum": {code: issues.TooSmall, takes: exclusiveFacts},
	"maximum":          {code: issues.TooBig, takes: boundFacts},
	"exclusiveMaximum": {code: issues.TooBig, takes: exclusiveFacts},
	"multipleOf":       {code: issues.NotMultipleOf, takes: divisorFacts},
	"uniqueItems":      {code: issues.Custom, check: issues.CheckUnique, takes: valueFacts},
	"contains":         {code: issues.Custom, check: issues.CheckContains, takes: countFacts},
	"minContains":      {code: issues.Custom, check: issues.CheckContains, takes: countFacts},
	"maxContains":      {code: issues.Custom, check: issues.CheckContains, takes: countFacts},
	"additionalItems":  {code: issues.TooBig, takes: itemsFacts},
	"not":              {code: issues.Custom, check: issues.CheckNot},
})

// sourced writes each row's source once, where an issue's would cost an
// allocation per issue (see type sub in jsonschemav6 for the budget).
func sourced(m map[string]keyword) map[string]keyword {
	for name, kw := range m {
		kw.source = "jsonschema:" + name
		m[name] = kw
	}
	return m
}

// Keyword adds the issue of f, worded by the keyword table, and reports
// whether the table has f's keyword; it adds nothing when it has not.
func (k *Sink) Keyword(f *Failure) bool {
	kw, ok := keywords[f.Keyword]
	if !ok {
		return false
	}
	is := k.Add(kw.code, f.Path, f.Input, kw.source)
	is.Check = kw.check
	// The bound a length or number words is the one its code names.
	lower := kw.code == issues.TooSmall
	switch kw.takes {
	case typeFacts:
		is.Expected = f.Types
	case valueFacts:
		is.Values = f.Values
	case formatFacts, mediaFacts:
		is.Format = f.Want
		if kw.takes == mediaFacts && f.Want == "application/json" {
			is.Format = "json" // the formatter's name for it
		}
		if f.Err != nil {
			is.Message = f.Err.Error() // the value's own reason
		}
	case patternFacts:
		is.Format, is.Pattern = "regex", f.Want
	case sizeFacts:
		is.Origin, is.Inclusive, is.Exact = kw.origin, true, f.Min != "" && f.Min == f.Max
		if lower {
			is.Minimum = f.Min
		} else {
			is.Maximum = f.Max
		}
	case boundFacts, exclusiveFacts:
		is.Origin, is.Inclusive = f.Origin, kw.takes == boundFacts
		if lower {
			is.Minimum = f.Min
		} else {
			is.Maximum = f.Max
		}
	case divisorFacts:
		is.Divisor = f.Divisor
		if f.Min != "" || f.Max != "" {
			// The multiples the field's bounds allow (see Multiples).
			is.Minimum, is.Maximum, is.Inclusive = f.Min, f.Max, true
		}
	case countFacts:
		is.Origin, is.Inclusive = issues.OriginArray, true
		is.Minimum, is.Maximum = f.Min, f.Max
	case itemsFacts:
		is.Origin, is.Inclusive, is.Maximum = issues.OriginArray, true, f.Max
	}
	return true
}

// Missing adds the issue of a property that must be sent and was not
// (required, dependentRequired, dependencies): path is the property's own,
// expected its declared types. present is the path of the property whose
// presence requires it, nil when it is required whatever was sent.
func (k *Sink) Missing(path issues.Path, expected issues.Types, source string, present issues.Path) {
	is := k.Add(issues.InvalidType, path, nil, source)
	is.Absent, is.Expected = true, expected
	if present != nil {
		is.When = &issues.Condition{Op: issues.CondPresent, Fields: []issues.Path{present}}
	}
}

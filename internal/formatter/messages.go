package formatter

import (
	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/templates"
	"github.com/selfheal/selfheal/locales"
)

// msgID names one message of the catalogs. Every id is declared here, with
// its catalog key, and TestMessageIDsInEveryCatalog checks that every
// shipped catalog has every id: a misspelt key fails that test instead of
// silently falling back to other wording.
//
// Only the formats' own descriptions ("format.email", "format.email.label")
// are looked up by a key built at run time: they are data about a format
// (which formats have a description is the catalog's business), not a
// choice of wording.
type msgID uint16

const (
	msgNone                       msgID = iota // no message: the rule does not apply
	msgInvalidType                             // invalid_type
	msgInvalidTypeMissing                      // invalid_type.missing
	msgInvalidTypeQuotedNumber                 // invalid_type.quoted_number
	msgInvalidTypeQuoted                       // invalid_type.quoted
	msgInvalidTypeJSONString                   // invalid_type.json_string
	msgInvalidTypeUnknown                      // invalid_type.unknown
	msgInvalidTypeObjectKeys                   // invalid_type.object_keys
	msgTooSmall                                // too_small
	msgTooSmallExclusive                       // too_small.exclusive
	msgTooSmallExact                           // too_small.exact
	msgTooSmallString                          // too_small.string
	msgTooSmallStringExclusive                 // too_small.string.exclusive
	msgTooSmallStringExact                     // too_small.string.exact
	msgTooSmallNumber                          // too_small.number
	msgTooSmallNumberExclusive                 // too_small.number.exclusive
	msgTooSmallInteger                         // too_small.integer
	msgTooSmallIntegerExclusive                // too_small.integer.exclusive
	msgTooSmallArray                           // too_small.array
	msgTooSmallArrayExclusive                  // too_small.array.exclusive
	msgTooSmallArrayExact                      // too_small.array.exact
	msgTooSmallObject                          // too_small.object
	msgTooSmallObjectExclusive                 // too_small.object.exclusive
	msgTooSmallObjectExact                     // too_small.object.exact
	msgTooSmallDate                            // too_small.date
	msgTooSmallDateExclusive                   // too_small.date.exclusive
	msgTooSmallDuration                        // too_small.duration
	msgTooSmallDurationExclusive               // too_small.duration.exclusive
	msgTooSmallFile                            // too_small.file
	msgTooSmallFileExclusive                   // too_small.file.exclusive
	msgTooSmallFileExact                       // too_small.file.exact
	msgTooBig                                  // too_big
	msgTooBigExclusive                         // too_big.exclusive
	msgTooBigExact                             // too_big.exact
	msgTooBigString                            // too_big.string
	msgTooBigStringExclusive                   // too_big.string.exclusive
	msgTooBigStringExact                       // too_big.string.exact
	msgTooBigNumber                            // too_big.number
	msgTooBigNumberExclusive                   // too_big.number.exclusive
	msgTooBigInteger                           // too_big.integer
	msgTooBigIntegerExclusive                  // too_big.integer.exclusive
	msgTooBigArray                             // too_big.array
	msgTooBigArrayExclusive                    // too_big.array.exclusive
	msgTooBigArrayExact                        // too_big.array.exact
	msgTooBigObject                            // too_big.object
	msgTooBigObjectExclusive                   // too_big.object.exclusive
	msgTooBigObjectExact                       // too_big.object.exact
	msgTooBigDate                              // too_big.date
	msgTooBigDateExclusive                     // too_big.date.exclusive
	msgTooBigDuration                          // too_big.duration
	msgTooBigDurationExclusive                 // too_big.duration.exclusive
	msgTooBigFile                              // too_big.file
	msgTooBigFileExclusive                     // too_big.file.exclusive
	msgTooBigFileExact                         // too_big.file.exact
	msgTooBigDepth                             // too_big.depth
	msgInvalidFormat                           // invalid_format
	msgInvalidFormatOther                      // invalid_format.other
	msgInvalidFormatUnnamed                    // invalid_format.unnamed
	msgInvalidFormatRegex                      // invalid_format.regex
	msgInvalidFormatStartsWith                 // invalid_format.starts_with
	msgInvalidFormatEndsWith                   // invalid_format.ends_with
	msgInvalidFormatIncludes                   // invalid_format.includes
	msgNotMultipleOf                           // not_multiple_of
	msgNotMultipleOfPlain                      // not_multiple_of.plain
	msgNotMultipleOfOne                        // not_multiple_of.one
	msgUnrecognizedKeys                        // unrecognized_keys
	msgUnrecognizedKeysAllowed                 // unrecognized_keys.allowed
	msgUnrecognizedKeysSuggest                 // unrecognized_keys.suggest
	msgUnrecognizedKeysNearMiss                // unrecognized_keys.near_miss
	msgInvalidValue                            // invalid_value
	msgInvalidValueSuggest                     // invalid_value.suggest
	msgInvalidValueSingle                      // invalid_value.single
	msgInvalidValueNone                        // invalid_value.none
	msgInvalidUnion                            // invalid_union
	msgInvalidUnionBare                        // invalid_union.bare
	msgInvalidKey                              // invalid_key
	msgInvalidKeyBare                          // invalid_key.bare
	msgInvalidElement                          // invalid_element
	msgInvalidElementBare                      // invalid_element.bare
	msgCustom                                  // custom
	msgCustomUnknown                           // custom.unknown
	msgCustomBare                              // custom.bare
	msgCustomNot                               // custom.not
	msgCustomOneOf                             // custom.one_of
	msgCustomNever                             // custom.never
	msgCustomContent                           // custom.content
	msgCustomContains                          // custom.contains
	msgCustomContainsMax                       // custom.contains.max
	msgCustomContainsBetween                   // custom.contains.between
	msgCustomContainsExact                     // custom.contains.exact
	msgCustomUnique                            // custom.unique
	msgCustomExcluded                          // custom.excluded
	msgInvalidTypeMissingWhen                  // invalid_type.missing.when
	msgInvalidTypeMissingValues                // invalid_type.missing.values
	msgInvalidFormatExcludes                   // invalid_format.excludes
	msgInvalidFormatIncludesAny                // invalid_format.includes_any
	msgInvalidFormatExcludesAny                // invalid_format.excludes_any
	msgInvalidFormatStartsNotWith              // invalid_format.starts_not_with
	msgInvalidFormatEndsNotWith                // invalid_format.ends_not_with
	msgInvalidFormatIncludesRef                // invalid_format.includes.ref
	msgInvalidFormatExcludesRef                // invalid_format.excludes.ref
	msgInvalidFormatTimeLayout                 // invalid_format.time_layout
	msgInvalidFormatPostcode                   // invalid_format.postcode
	msgInvalidFormatPostcodeRef                // invalid_format.postcode.ref
	msgInvalidFormatMimetype                   // invalid_format.mimetype
	msgInvalidValueNot                         // invalid_value.not
	msgInvalidValueRef                         // invalid_value.ref
	msgInvalidValueNotRef                      // invalid_value.not.ref
	msgTooSmallRef                             // too_small.ref
	msgTooSmallRefExclusive                    // too_small.ref.exclusive
	msgTooBigRef                               // too_big.ref
	msgTooBigRefExclusive                      // too_big.ref.exclusive
	msgCustomExcludedWhen                      // custom.excluded.when
	msgCustomUniqueBy                          // custom.unique.by
	msgCustomUniqueBare                        // custom.unique.bare
	msgCustomDefault                           // custom.default
	msgCustomMethod                            // custom.method
	msgCustomRule                              // custom.rule
	msgConditionIs                             // condition.is
	msgConditionEquals                         // condition.equals
	msgConditionNotEquals                      // condition.not_equals
	msgConditionPresent                        // condition.present
	msgConditionAllPresent                     // condition.all_present
	msgConditionAbsent                         // condition.absent
	msgConditionAllAbsent                      // condition.all_absent
	msgRefValue                                // ref.value
	msgListAnd                                 // list.and
	msgTypeString                              // type.string
	msgTypeNumber                              // type.number
	msgTypeInteger                             // type.integer
	msgTypeBoolean                             // type.boolean
	msgTypeObject                              // type.object
	msgTypeArray                               // type.array
	msgTypeNull                                // type.null
	msgTypeDate                                // type.date
	msgTypeAny                                 // type.any
	msgUnitString                              // unit.string
	msgUnitArray                               // unit.array
	msgUnitObject                              // unit.object
	msgUnitBytes                               // unit.bytes
	msgValueAbsent                             // value.absent
	msgValueUnknown                            // value.unknown
	msgValueSized                              // value.sized
	msgServerMessageCut                        // server_message.cut
	msgValueRedacted                           // value.redacted
	msgValueRedactedUnsized                    // value.redacted.unsized
	msgValueHidden                             // value.hidden
	msgExample                                 // example
	msgListOr                                  // list.or
	msgListMore                                // list.more
	msgMore                                    // more
	msgRecovery                                // recovery
	msgUnrecognizedKeysMissing                 // unrecognized_keys.missing
	msgInvalidFormatEmail                      // invalid_format.email

	numMsgs
)

// msgKeys is the catalog key of each id, split as Catalog.Message takes it.
var msgKeys = [numMsgs][3]string{
	msgInvalidType:                {"invalid_type", "", ""},
	msgInvalidTypeMissing:         {"invalid_type", "missing", ""},
	msgInvalidTypeQuotedNumber:    {"invalid_type", "quoted_number", ""},
	msgInvalidTypeQuoted:          {"invalid_type", "quoted", ""},
	msgInvalidTypeJSONString:      {"invalid_type", "json_string", ""},
	msgInvalidTypeUnknown:         {"invalid_type", "unknown", ""},
	msgInvalidTypeObjectKeys:      {"invalid_type", "object_keys", ""},
	msgTooSmall:                   {"too_small", "", ""},
	msgTooSmallExclusive:          {"too_small", "exclusive", ""},
	msgTooSmallExact:              {"too_small", "exact", ""},
	msgTooSmallString:             {"too_small", "string", ""},
	msgTooSmallStringExclusive:    {"too_small", "string", "exclusive"},
	msgTooSmallStringExact:        {"too_small", "string", "exact"},
	msgTooSmallNumber:             {"too_small", "number", ""},
	msgTooSmallNumberExclusive:    {"too_small", "number", "exclusive"},
	msgTooSmallInteger:            {"too_small", "integer", ""},
	msgTooSmallIntegerExclusive:   {"too_small", "integer", "exclusive"},
	msgTooSmallArray:              {"too_small", "array", ""},
	msgTooSmallArrayExclusive:     {"too_small", "array", "exclusive"},
	msgTooSmallArrayExact:         {"too_small", "array", "exact"},
	msgTooSmallObject:             {"too_small", "object", ""},
	msgTooSmallObjectExclusive:    {"too_small", "object", "exclusive"},
	msgTooSmallObjectExact:        {"too_small", "object", "exact"},
	msgTooSmallDate:               {"too_small", "date", ""},
	msgTooSmallDateExclusive:      {"too_small", "date", "exclusive"},
	msgTooSmallDuration:           {"too_small", "duration", ""},
	msgTooSmallDurationExclusive:  {"too_small", "duration", "exclusive"},
	msgTooSmallFile:               {"too_small", "file", ""},
	msgTooSmallFileExclusive:      {"too_small", "file", "exclusive"},
	msgTooSmallFileExact:          {"too_small", "file", "exact"},
	msgTooBig:                     {"too_big", "", ""},
	msgTooBigExclusive:            {"too_big", "exclusive", ""},
	msgTooBigExact:                {"too_big", "exact", ""},
	msgTooBigString:               {"too_big", "string", ""},
	msgTooBigStringExclusive:      {"too_big", "string", "exclusive"},
	msgTooBigStringExact:          {"too_big", "string", "exact"},
	msgTooBigNumber:               {"too_big", "number", ""},
	msgTooBigNumberExclusive:      {"too_big", "number", "exclusive"},
	msgTooBigInteger:              {"too_big", "integer", ""},
	msgTooBigIntegerExclusive:     {"too_big", "integer", "exclusive"},
	msgTooBigArray:                {"too_big", "array", ""},
	msgTooBigArrayExclusive:       {"too_big", "array", "exclusive"},
	msgTooBigArrayExact:           {"too_big", "array", "exact"},
	msgTooBigObject:               {"too_big", "object", ""},
	msgTooBigObjectExclusive:      {"too_big", "object", "exclusive"},
	msgTooBigObjectExact:          {"too_big", "object", "exact"},
	msgTooBigDate:                 {"too_big", "date", ""},
	msgTooBigDateExclusive:        {"too_big", "date", "exclusive"},
	msgTooBigDuration:             {"too_big", "duration", ""},
	msgTooBigDurationExclusive:    {"too_big", "duration", "exclusive"},
	msgTooBigFile:                 {"too_big", "file", ""},
	msgTooBigFileExclusive:        {"too_big", "file", "exclusive"},
	msgTooBigFileExact:            {"too_big", "file", "exact"},
	msgTooBigDepth:                {"too_big", "depth", ""},
	msgInvalidFormat:              {"invalid_format", "", ""},
	msgInvalidFormatOther:         {"invalid_format", "other", ""},
	msgInvalidFormatUnnamed:       {"invalid_format", "unnamed", ""},
	msgInvalidFormatRegex:         {"invalid_format", "regex", ""},
	msgInvalidFormatStartsWith:    {"invalid_format", "starts_with", ""},
	msgInvalidFormatEndsWith:      {"invalid_format", "ends_with", ""},
	msgInvalidFormatIncludes:      {"invalid_format", "includes", ""},
	msgNotMultipleOf:              {"not_multiple_of", "", ""},
	msgNotMultipleOfPlain:         {"not_multiple_of", "plain", ""},
	msgNotMultipleOfOne:           {"not_multiple_of", "one", ""},
	msgUnrecognizedKeys:           {"unrecognized_keys", "", ""},
	msgUnrecognizedKeysAllowed:    {"unrecognized_keys", "allowed", ""},
	msgUnrecognizedKeysSuggest:    {"unrecognized_keys", "suggest", ""},
	msgUnrecognizedKeysNearMiss:   {"unrecognized_keys", "near_miss", ""},
	msgInvalidValue:               {"invalid_value", "", ""},
	msgInvalidValueSuggest:        {"invalid_value", "suggest", ""},
	msgInvalidValueSingle:         {"invalid_value", "single", ""},
	msgInvalidValueNone:           {"invalid_value", "none", ""},
	msgInvalidUnion:               {"invalid_union", "", ""},
	msgInvalidUnionBare:           {"invalid_union", "bare", ""},
	msgInvalidKey:                 {"invalid_key", "", ""},
	msgInvalidKeyBare:             {"invalid_key", "bare", ""},
	msgInvalidElement:             {"invalid_element", "", ""},
	msgInvalidElementBare:         {"invalid_element", "bare", ""},
	msgCustom:                     {"custom", "", ""},
	msgCustomUnknown:              {"custom", "unknown", ""},
	msgCustomBare:                 {"custom", "bare", ""},
	msgCustomNot:                  {"custom", "not", ""},
	msgCustomOneOf:                {"custom", "one_of", ""},
	msgCustomNever:                {"custom", "never", ""},
	msgCustomContent:              {"custom", "content", ""},
	msgCustomContains:             {"custom", "contains", ""},
	msgCustomContainsMax:          {"custom", "contains", "max"},
	msgCustomContainsBetween:      {"custom", "contains", "between"},
	msgCustomContainsExact:        {"custom", "contains", "exact"},
	msgCustomUnique:               {"custom", "unique", ""},
	msgCustomExcluded:             {"custom", "excluded", ""},
	msgInvalidTypeMissingWhen:     {"invalid_type", "missing", "when"},
	msgInvalidTypeMissingValues:   {"invalid_type", "missing", "values"},
	msgInvalidFormatExcludes:      {"invalid_format", "excludes", ""},
	msgInvalidFormatIncludesAny:   {"invalid_format", "includes_any", ""},
	msgInvalidFormatExcludesAny:   {"invalid_format", "excludes_any", ""},
	msgInvalidFormatStartsNotWith: {"invalid_format", "starts_not_with", ""},
	msgInvalidFormatEndsNotWith:   {"invalid_format", "ends_not_with", ""},
	msgInvalidFormatIncludesRef:   {"invalid_format", "includes", "ref"},
	msgInvalidFormatExcludesRef:   {"invalid_format", "excludes", "ref"},
	msgInvalidFormatTimeLayout:    {"invalid_format", "time_layout", ""},
	msgInvalidFormatPostcode:      {"invalid_format", "postcode", ""},
	msgInvalidFormatPostcodeRef:   {"invalid_format", "postcode", "ref"},
	msgInvalidFormatMimetype:      {"invalid_format", "mimetype", ""},
	msgInvalidValueNot:            {"invalid_value", "not", ""},
	msgInvalidValueRef:            {"invalid_value", "ref", ""},
	msgInvalidValueNotRef:         {"invalid_value", "not", "ref"},
	msgTooSmallRef:                {"too_small", "ref", ""},
	msgTooSmallRefExclusive:       {"too_small", "ref", "exclusive"},
	msgTooBigRef:                  {"too_big", "ref", ""},
	msgTooBigRefExclusive:         {"too_big", "ref", "exclusive"},
	msgCustomExcludedWhen:         {"custom", "excluded", "when"},
	msgCustomUniqueBy:             {"custom", "unique", "by"},
	msgCustomUniqueBare:           {"custom", "unique", "bare"},
	msgCustomDefault:              {"custom", "default", ""},
	msgCustomMethod:               {"custom", "method", ""},
	msgCustomRule:                 {"custom", "rule", ""},
	msgConditionIs:                {"condition", "is", ""},
	msgConditionEquals:            {"condition", "equals", ""},
	msgConditionNotEquals:         {"condition", "not_equals", ""},
	msgConditionPresent:           {"condition", "present", ""},
	msgConditionAllPresent:        {"condition", "all_present", ""},
	msgConditionAbsent:            {"condition", "absent", ""},
	msgConditionAllAbsent:         {"condition", "all_absent", ""},
	msgRefValue:                   {"ref", "value", ""},
	msgListAnd:                    {"list", "and", ""},
	msgTypeString:                 {"type", "string", ""},
	msgTypeNumber:                 {"type", "number", ""},
	msgTypeInteger:                {"type", "integer", ""},
	msgTypeBoolean:                {"type", "boolean", ""},
	msgTypeObject:                 {"type", "object", ""},
	msgTypeArray:                  {"type", "array", ""},
	msgTypeNull:                   {"type", "null", ""},
	msgTypeDate:                   {"type", "date", ""},
	msgTypeAny:                    {"type", "any", ""},
	msgUnitString:                 {"unit", "string", ""},
	msgUnitArray:                  {"unit", "array", ""},
	msgUnitObject:                 {"unit", "object", ""},
	msgUnitBytes:                  {"unit", "bytes", ""},
	msgValueAbsent:                {"value", "absent", ""},
	msgValueUnknown:               {"value", "unknown", ""},
	msgValueSized:                 {"value", "sized", ""},
	msgServerMessageCut:           {"server_message", "cut", ""},
	msgValueRedacted:              {"value", "redacted", ""},
	msgValueRedactedUnsized:       {"value", "redacted", "unsized"},
	msgValueHidden:                {"value", "hidden", ""},
	msgExample:                    {"example", "", ""},
	msgListOr:                     {"list", "or", ""},
	msgListMore:                   {"list", "more", ""},
	msgMore:                       {"more", "", ""},
	msgRecovery:                   {"recovery", "", ""},
	msgUnrecognizedKeysMissing:    {"unrecognized_keys", "missing", ""},
	msgInvalidFormatEmail:         {"invalid_format", "email", ""},
}

// family holds the ids of one family of keys (the keys that begin with
// the same part: "too_small", "unit"), by their second part, for keys built
// from an issue's facts (an origin, a check, an operator): a key no id
// declares has no message.
type family map[string][]variant

type variant struct {
	c  string
	id msgID
}

// id returns the id of the family's key b.c, or msgNone.
func (f family) id(b, c string) msgID {
	for _, v := range f[b] {
		if v.c == c {
			return v.id
		}
	}
	return msgNone
}

// families are the families by their first part.
var families = func() map[string]family {
	m := map[string]family{}
	for id := msgNone + 1; id < numMsgs; id++ {
		k := msgKeys[id]
		if m[k[0]] == nil {
			m[k[0]] = family{}
		}
		m[k[0]][k[1]] = append(m[k[0]][k[1]], variant{k[2], id})
	}
	return m
}()

// The families whose keys are built from facts.
var (
	tooSmallFamily  = families["too_small"]
	tooBigFamily    = families["too_big"]
	formatFamily    = families["invalid_format"]
	customFamily    = families["custom"]
	conditionFamily = families["condition"]
	unitFamily      = families["unit"]
	typeFamily      = families["type"]
)

// idOf returns the id of the key a.b.c, or msgNone.
func idOf(a, b, c string) msgID { return families[a].id(b, c) }

// messages are a catalog's messages by id, resolved once per Formatter:
// the catalog's own, else English's, so that a catalog missing a message
// still says something precise.
type messages [numMsgs]*templates.Message

func resolve(cat *catalog.Catalog) *messages {
	var ms messages
	en := (*catalog.Catalog)(locales.Default())
	for id := msgNone + 1; id < numMsgs; id++ {
		k := msgKeys[id]
		if ms[id] = cat.Message(k[0], k[1], k[2]); ms[id] == nil {
			ms[id] = en.Message(k[0], k[1], k[2])
		}
	}
	return &ms
}

// m returns the formatter's message for id (nil for msgNone).
func (s *state) m(id msgID) *templates.Message { return s.f.msgs[id] }

// formatText is what a catalog says of one format: what is expected, and
// its label (the catalog's own only: a label in another language would be
// worse than the format's name).
type formatText struct{ expected, label *templates.Message }

// formatTexts collects the catalog's texts of every format, by name.
func formatTexts(cat *catalog.Catalog) map[string]formatText {
	m := map[string]formatText{}
	for _, c := range []*catalog.Catalog{(*catalog.Catalog)(locales.Default()), cat} {
		for _, id := range c.Keys() {
			if id[0] != "format" || id[1] == "" {
				continue
			}
			t := m[id[1]]
			switch id[2] {
			case "":
				t.expected = c.Message(id[0], id[1], id[2])
			case "label":
				if c == cat {
					t.label = c.Message(id[0], id[1], id[2])
				}
			}
			m[id[1]] = t
		}
	}
	return m
}

// formatMsg is what format f expects, or nil when no catalog describes it.
func (f *Formatter) formatMsg(format string) *templates.Message { return f.formats[format].expected }

// formatLabel is the catalog's name of format f, or nil.
func (f *Formatter) formatLabel(format string) *templates.Message { return f.formats[format].label }

package jsondecode

import (
	"cmp"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/selfheal/selfheal/issues"
)

// class is what a Go type accepts from JSON, decided once per type with the
// same precedence encoding/json applies at decode time.
type class uint8

const (
	clsAny         class = iota // anything: empty interfaces, and types left to encoding/json itself
	clsPtr                      // a pointer: null clears it, anything else goes to the element
	clsRaw                      // json.RawMessage: any value
	clsUnmarshaler              // implements json.Unmarshaler
	clsTime                     // time.Time: an Unmarshaler whose failure we can name
	clsText                     // implements encoding.TextUnmarshaler: strings only
	clsBool
	clsInt
	clsUint
	clsFloat
	clsString
	clsNumber // json.Number: a number, or a string holding one
	clsBytes  // a byte slice: a base64 string, or an array of bytes
	clsSlice
	clsArray
	clsMap
	clsStruct
)

// keyClass is how a map's key type is read from an object key.
type keyClass uint8

const (
	keyString keyClass = iota
	keyInt
	keyUint
	keyText
)

// typeInfo is the cached analysis of one Go type.
type typeInfo struct {
	cls class
	// ptr records that the type itself is a pointer implementing the
	// unmarshaler: null then clears it instead of calling the method.
	ptr bool
	// base is the type to allocate when calling an unmarshaler.
	base reflect.Type
	// elem is the pointee, slice, array or map element type.
	elem reflect.Type
	// bits is the size of a number type; length that of an array.
	bits, length int
	key          keyClass
	keyType      reflect.Type
	st           *structInfo
}

var (
	unmarshalerType     = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	rawMessageType      = reflect.TypeFor[json.RawMessage]()
	numberType          = reflect.TypeFor[json.Number]()
	timeType            = reflect.TypeFor[time.Time]()
)

var typeCache sync.Map // reflect.Type → *typeInfo

// infoOf returns the analysis of t, computing it on first use. Struct
// fields are analysed lazily (their types are looked up when walked), so
// recursive types need no special care.
func infoOf(t reflect.Type) *typeInfo {
	if ti, ok := typeCache.Load(t); ok {
		return ti.(*typeInfo)
	}
	ti, _ := typeCache.LoadOrStore(t, classify(t))
	return ti.(*typeInfo)
}

func classify(t reflect.Type) *typeInfo {
	ti := &typeInfo{}
	if t.Kind() == reflect.Pointer {
		// encoding/json checks each pointer level's own method set before
		// following it.
		switch base := t.Elem(); {
		case base == rawMessageType:
			ti.cls, ti.ptr, ti.base = clsRaw, true, base
		case base == timeType:
			ti.cls, ti.ptr, ti.base = clsTime, true, base
		case t.Implements(unmarshalerType):
			ti.cls, ti.ptr, ti.base = clsUnmarshaler, true, base
		case t.Implements(textUnmarshalerType):
			ti.cls, ti.ptr, ti.base = clsText, true, base
		default:
			ti.cls, ti.elem = clsPtr, base
		}
		return ti
	}
	// A named non-pointer value is decoded through its address, so pointer
	// methods count; unnamed types are never addressed (encoding/json's
	// indirect).
	if t.Name() != "" && t.Kind() != reflect.Interface {
		pt := reflect.PointerTo(t)
		switch {
		case t == rawMessageType:
			ti.cls, ti.base = clsRaw, t
			return ti
		case t == timeType:
			ti.cls, ti.base = clsTime, t
			return ti
		case pt.Implements(unmarshalerType):
			ti.cls, ti.base = clsUnmarshaler, t
			return ti
		case pt.Implements(textUnmarshalerType):
			ti.cls, ti.base = clsText, t
			return ti
		}
	}
	switch t.Kind() {
	case reflect.Bool:
		ti.cls = clsBool
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		ti.cls, ti.bits = clsInt, t.Bits()
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		ti.cls, ti.bits = clsUint, t.Bits()
	case reflect.Float32, reflect.Float64:
		ti.cls, ti.bits = clsFloat, t.Bits()
	case reflect.String:
		ti.cls = clsString
		if t == numberType {
			ti.cls = clsNumber
		}
	case reflect.Slice:
		ti.cls, ti.elem = clsSlice, t.Elem()
		if t.Elem().Kind() == reflect.Uint8 {
			ti.cls = clsBytes
		}
	case reflect.Array:
		ti.cls, ti.elem, ti.length = clsArray, t.Elem(), t.Len()
	case reflect.Map:
		ti.cls, ti.elem, ti.keyType = clsMap, t.Elem(), t.Key()
		kt := t.Key()
		switch {
		case reflect.PointerTo(kt).Implements(textUnmarshalerType):
			ti.key = keyText
		case kt.Kind() == reflect.String:
			ti.key = keyString
		case kt.Kind() >= reflect.Int && kt.Kind() <= reflect.Int64:
			ti.key, ti.bits = keyInt, kt.Bits()
		case kt.Kind() >= reflect.Uint && kt.Kind() <= reflect.Uintptr:
			ti.key, ti.bits = keyUint, kt.Bits()
		default:
			// encoding/json rejects such maps whatever the input; leave
			// the error to it.
			ti.cls = clsAny
		}
	case reflect.Struct:
		ti.cls, ti.st = clsStruct, structFields(t)
	default:
		// Interfaces accept anything (a non-empty one, or one already
		// holding a pointer, is settled by encoding/json itself); channels,
		// functions and complex numbers always fail there.
		ti.cls = clsAny
	}
	return ti
}

// expected is the JSON type ti accepts, or none when any JSON value may
// do.
func (ti *typeInfo) expected() issues.Types {
	switch ti.cls {
	case clsPtr:
		return infoOf(ti.elem).expected()
	case clsBool:
		return issues.TypeBoolean
	case clsInt, clsUint:
		return issues.TypeInteger
	case clsFloat, clsNumber:
		return issues.TypeNumber
	case clsString, clsText, clsBytes, clsTime:
		return issues.TypeString
	case clsSlice, clsArray:
		return issues.TypeArray
	case clsMap, clsStruct:
		return issues.TypeObject
	}
	return 0
}

// field is one JSON member of a struct, after Go's embedding rules.
type field struct {
	name   string
	typ    reflect.Type
	quoted bool // the ",string" option applies
}

// structInfo maps a struct's JSON names to its fields.
type structInfo struct {
	fields  []field
	byName  map[string]int
	byFold  map[string]int
	allowed []string // names in field order, for unrecognized_keys
}

// lookup finds the field for an object key the way encoding/json does: the
// exact name first, then a case-insensitive match.
func (si *structInfo) lookup(key []byte) (*field, bool) {
	if i, ok := si.byName[string(key)]; ok {
		return &si.fields[i], true
	}
	var buf [64]byte
	if i, ok := si.byFold[string(appendFolded(buf[:0], key))]; ok {
		return &si.fields[i], true
	}
	return nil, false
}

// structFields lists the JSON members of t with encoding/json's rules:
// exported fields and fields promoted from embedded structs, named by tag
// or Go name, "-" skipped, the shallowest (then the tagged) of equal names
// winning and ties at one depth hiding each other.
func structFields(t reflect.Type) *structInfo {
	type cand struct {
		field
		index  []int
		tagged bool
	}
	type level struct {
		typ   reflect.Type
		index []int
	}
	var all []cand
	next := []level{{typ: t}}
	visited := map[reflect.Type]bool{}
	var count, nextCount map[reflect.Type]int
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, l := range current {
			if visited[l.typ] {
				continue
			}
			visited[l.typ] = true
			for i := range l.typ.NumField() {
				sf := l.typ.Field(i)
				if sf.Anonymous {
					et := sf.Type
					if et.Kind() == reflect.Pointer {
						et = et.Elem()
					}
					if !sf.IsExported() && et.Kind() != reflect.Struct {
						continue
					}
				} else if !sf.IsExported() {
					continue
				}
				tag := sf.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, opts, _ := strings.Cut(tag, ",")
				if !validTag(name) {
					name = ""
				}
				index := append(slices.Clip(l.index), i)
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					quoted := false
					if hasOption(opts, "string") {
						switch ft.Kind() {
						case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
							reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
							reflect.Float32, reflect.Float64, reflect.String:
							quoted = true
						}
					}
					c := cand{field{name, sf.Type, quoted}, index, name != ""}
					if c.name == "" {
						c.name = sf.Name
					}
					all = append(all, c)
					if count[l.typ] > 1 {
						// The same struct reached twice at one depth: its
						// fields annihilate each other.
						all = append(all, c)
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, level{ft, index})
				}
			}
		}
	}
	slices.SortStableFunc(all, func(a, b cand) int {
		if c := strings.Compare(a.name, b.name); c != 0 {
			return c
		}
		if c := cmp.Compare(len(a.index), len(b.index)); c != 0 {
			return c
		}
		if a.tagged != b.tagged {
			if a.tagged {
				return -1
			}
			return 1
		}
		return slices.Compare(a.index, b.index)
	})
	var kept []cand
	for i := 0; i < len(all); {
		j := i + 1
		for j < len(all) && all[j].name == all[i].name {
			j++
		}
		if j-i == 1 || len(all[i].index) != len(all[i+1].index) || all[i].tagged != all[i+1].tagged {
			kept = append(kept, all[i])
		}
		i = j
	}
	slices.SortFunc(kept, func(a, b cand) int { return slices.Compare(a.index, b.index) })

	si := &structInfo{
		byName: make(map[string]int, len(kept)),
		byFold: make(map[string]int, len(kept)),
	}
	for i, c := range kept {
		si.fields = append(si.fields, c.field)
		si.allowed = append(si.allowed, c.name)
		si.byName[c.name] = i
		folded := string(appendFolded(nil, []byte(c.name)))
		if _, ok := si.byFold[folded]; !ok {
			si.byFold[folded] = i
		}
	}
	return si
}

// validTag is encoding/json's rule for a usable tag name.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

func hasOption(opts, name string) bool {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		if o == name {
			return true
		}
	}
	return false
}

// appendFolded folds a key exactly as encoding/json does for its
// case-insensitive match, so that a key it accepts is never reported.
func appendFolded(out, in []byte) []byte {
	for i := 0; i < len(in); {
		if c := in[i]; c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(in[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
		i += n
	}
	return out
}

// numberIssue checks a number's text against an integer or float type the
// way encoding/json parses it, and says what is wrong: not an integer
// (invalid_type), or beyond the type's range (too_big / too_small with the
// bound). bad is false when the number fits.
func numberIssue(text string, ti *typeInfo) (is issues.Issue, bad bool) {
	switch ti.cls {
	case clsInt:
		n, err := strconv.ParseInt(text, 10, 64)
		if err == nil && !overflowInt(n, ti.bits) {
			return is, false
		}
		if !integral(text) {
			return issues.Issue{Code: issues.InvalidType, Expected: issues.TypeInteger, Source: srcType}, true
		}
		if strings.HasPrefix(text, "-") {
			return tooSmall(issues.OriginInteger, strconv.FormatInt(-1<<(ti.bits-1), 10)), true
		}
		return tooBig(issues.OriginInteger, strconv.FormatInt(1<<(ti.bits-1)-1, 10)), true
	case clsUint:
		n, err := strconv.ParseUint(text, 10, 64)
		if err == nil && (ti.bits == 64 || n < 1<<ti.bits) {
			return is, false
		}
		if !integral(text) || text[0] == '+' {
			return issues.Issue{Code: issues.InvalidType, Expected: issues.TypeInteger, Source: srcType}, true
		}
		if strings.HasPrefix(text, "-") {
			return tooSmall(issues.OriginInteger, "0"), true
		}
		return tooBig(issues.OriginInteger, strconv.FormatUint(1<<ti.bits-1, 10)), true
	case clsFloat:
		_, err := strconv.ParseFloat(text, ti.bits)
		if err == nil {
			return is, false
		}
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			// Only reachable for ",string" contents that are no number.
			return issues.Issue{Code: issues.InvalidFormat, Format: "number", Source: srcFormat}, true
		}
		limit := strconv.FormatFloat(maxFloat(ti.bits), 'g', -1, ti.bits)
		if strings.HasPrefix(text, "-") {
			return tooSmall(issues.OriginNumber, "-"+limit), true
		}
		return tooBig(issues.OriginNumber, limit), true
	}
	return is, false
}

func tooSmall(origin, bound string) issues.Issue {
	return issues.Issue{Code: issues.TooSmall, Origin: origin, Minimum: issues.Number(bound), Inclusive: true, Source: srcRange}
}

func tooBig(origin, bound string) issues.Issue {
	return issues.Issue{Code: issues.TooBig, Origin: origin, Maximum: issues.Number(bound), Inclusive: true, Source: srcRange}
}

func overflowInt(n int64, bits int) bool {
	if bits == 64 {
		return false
	}
	return n < -1<<(bits-1) || n > 1<<(bits-1)-1
}

func maxFloat(bits int) float64 {
	if bits == 32 {
		return 3.40282346638528859811704183484516925440e+38
	}
	return 1.79769313486231570814527423731704356798070e+308
}

// integral reports whether a number's text is written as an integer:
// encoding/json parses integers with strconv.ParseInt, so 1.0 and 1e3 are
// not integers to it (and a map key may carry a sign, as ParseInt allows).
func integral(text string) bool {
	t := text
	if t != "" && (t[0] == '-' || t[0] == '+') {
		t = t[1:]
	}
	if t == "" {
		return false
	}
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return true
}

package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// scanLine reads line as one JSON-RPC message in one pass over its bytes: it
// checks the syntax of everything but the values of result and error (at
// any depth, as ValidJSON), and records the members the proxy reads, with
// params' own (name, arguments, _meta, cursor) and the depth and
// plainness of the arguments, so that nothing reads the line again before
// the arguments are decoded. ok is false when the line is not one JSON
// object with every byte outside result and error well-formed; Decode then
// falls back to its lenient reading.
//
// Result and error are skipped as Members does (strings at memchr speed):
// the proxy reads few responses, and those it reads are parsed again where
// they are used.
func scanLine(line []byte) (m Message, ok bool) {
	var s scanner
	m.Valid = true
	err := s.object(line, SkipSpace(line, 0), func(key []byte, i int) int {
		switch string(key) {
		case "result", "error":
			end := SkipValue(line, i)
			if end < 0 {
				return -1
			}
			m.Valid = false // not checked
			if key[0] == 'r' {
				m.Result = line[i:end]
			} else {
				m.Error = line[i:end]
			}
			return end
		case "params":
			return s.params(line, i, &m)
		}
		end, _ := s.value(line, i)
		if end < 0 {
			return -1
		}
		switch string(key) {
		case "jsonrpc":
			m.Version = line[i:end]
		case "id":
			m.ID = line[i:end]
		case "method":
			m.RawMethod = line[i:end]
		}
		return end
	})
	if err < 0 || SkipSpace(line, err) != len(line) {
		return Message{}, false
	}
	return m, true
}

// params reads the params member whose value starts at line[i] into m,
// and returns the index after it, or -1.
func (s *scanner) params(line []byte, i int, m *Message) int {
	// A later params replaces an earlier one, as in any JSON parser.
	m.Call, m.ParamsObject = CallParams{}, false
	if i == len(line) || line[i] != '{' {
		end, _ := s.value(line, i)
		if end >= 0 {
			m.Params = line[i:end]
		}
		return end
	}
	var name []byte
	end := s.object(line, i, func(key []byte, j int) int {
		escapes, impure, values := s.escapes, s.impure, s.values
		end, depth := s.value(line, j)
		if end < 0 {
			return -1
		}
		switch string(key) {
		case "name":
			name = line[j:end]
		case "arguments":
			m.Call.Args = line[j:end]
			m.Call.Scanned, m.Call.Depth = true, depth
			m.Call.Values = s.values - values
			m.Call.Plain = s.escapes == escapes && s.impure == impure
		case "_meta":
			m.Call.Meta = line[j:end]
		case "cursor":
			m.Call.Cursor = line[j:end]
		}
		return end
	})
	if end < 0 {
		return -1
	}
	m.Params = line[i:end]
	m.Call.Name = Str(name)
	m.ParamsObject = true
	return end
}

// scanner checks JSON syntax. escapes and impure count the escapes and the
// invalid UTF-8 sequences met in strings, so that a caller can tell whether
// a value it scanned is plain (see jsonvalue.DecodeScanned).
type scanner struct {
	escapes, impure int
	// values counts the JSON values scanned (see CallParams.Values).
	values int
}

// object reads the JSON object at data[i], calling member with each
// member's name (as any JSON parser reads it, see MemberName) and the
// index of its value; member returns the index after the value, or -1. It
// returns the index after the object, or -1 when it is malformed.
func (s *scanner) object(data []byte, i int, member func(key []byte, i int) int) int {
	if i == len(data) || data[i] != '{' {
		return -1
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return i + 1
	}
	for {
		if i == len(data) || data[i] != '"' {
			return -1
		}
		escapes, impure := s.escapes, s.impure
		end := s.str(data, i)
		if end < 0 {
			return -1
		}
		key := data[i+1 : end-1]
		if s.escapes != escapes || s.impure != impure {
			key = MemberName(data[i:end])
		}
		i = SkipSpace(data, end)
		if i == len(data) || data[i] != ':' {
			return -1
		}
		if i = member(key, SkipSpace(data, i+1)); i < 0 {
			return -1
		}
		i = SkipSpace(data, i)
		if i == len(data) {
			return -1
		}
		switch data[i] {
		case ',':
			i = SkipSpace(data, i+1)
		case '}':
			return i + 1
		default:
			return -1
		}
	}
}

// value returns the index just past the JSON value (RFC 8259) at data[i],
// and how deeply it nests objects and arrays (an object or array is 1, a
// scalar 0); -1 when there is no well-formed value there. It reads any
// depth: its memory is one byte per open object or array.
func (s *scanner) value(data []byte, i int) (end, depth int) {
	var stack [64]byte
	open := stack[:0] // '{' or '[' for each object or array not closed yet
	for {
		// A value starts at i.
		if i == len(data) {
			return -1, 0
		}
		s.values++
		switch c := data[i]; c {
		case '{', '[':
			i = SkipSpace(data, i+1)
			depth = max(depth, len(open)+1)
			if i < len(data) && data[i] == c+2 { // '}' and ']' follow '{' and '[' by 2
				i++
				break // empty: the value has ended
			}
			open = append(open, c)
			if c == '{' {
				if i = s.memberStart(data, i); i < 0 {
					return -1, 0
				}
			}
			continue
		case '"':
			if i = s.str(data, i); i < 0 {
				return -1, 0
			}
		default:
			if i = validLiteral(data, i); i < 0 {
				return -1, 0
			}
		}
		// A value has ended at i: what follows continues or closes the
		// objects and arrays it is in.
		for {
			if len(open) == 0 {
				return i, depth
			}
			i = SkipSpace(data, i)
			if i == len(data) {
				return -1, 0
			}
			top := open[len(open)-1]
			if data[i] == ',' {
				i = SkipSpace(data, i+1)
				if top == '{' {
					if i = s.memberStart(data, i); i < 0 {
						return -1, 0
					}
				}
				break // the next value
			}
			if data[i] != top+2 {
				return -1, 0
			}
			open = open[:len(open)-1]
			i++
		}
	}
}

// memberStart reads an object member's name and colon at data[i] and
// returns the index of its value, or -1 when they are not there.
func (s *scanner) memberStart(data []byte, i int) int {
	if i == len(data) || data[i] != '"' {
		return -1
	}
	if i = s.str(data, i); i < 0 {
		return -1
	}
	if i = SkipSpace(data, i); i == len(data) || data[i] != ':' {
		return -1
	}
	return SkipSpace(data, i+1)
}

// Bytes repeated in each byte of a word, for str's word-at-a-time test.
const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// specials flags the bytes of the little-endian word x that str must look
// at (a quote, a backslash, a control character, a byte past ASCII) with
// their high bit, and returns 0 when there is none. Each term is the
// classic test for a zero byte, or a byte below n, in a word: exact for
// the lowest such byte (a borrow can only flag bytes above it), which is
// the one str jumps to.
func specials(x uint64) uint64 {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x | x) & highs
}

// str returns the index just past the JSON string at data[i] (a quote), or
// -1 when it is not one: no control character, only JSON's escapes. Other
// bytes pass, as json.Valid lets them; each escape and each invalid UTF-8
// sequence is counted. Runs of ordinary bytes are skipped eight at a
// time, straight to the first byte that is not: most keys and values are
// shorter than a word, and stepping through them byte by byte was most of
// the scan of a small message (issue 29).
func (s *scanner) str(data []byte, i int) int {
	for i++; ; {
		for i+8 <= len(data) {
			if m := specials(binary.LittleEndian.Uint64(data[i:])); m != 0 {
				i += bits.TrailingZeros64(m) / 8
				break
			}
			i += 8
		}
		if i >= len(data) {
			return -1
		}
		switch c := data[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			return -1
		case c == '\\':
			s.escapes++
			if i++; i == len(data) {
				return -1
			}
			switch data[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if i+4 >= len(data) {
					return -1
				}
				for _, h := range data[i+1 : i+5] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return -1
					}
				}
				i += 5
			default:
				return -1
			}
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				s.impure++
			}
			i += size
		default:
			i++
		}
	}
}

// ValidJSON reports whether data is one JSON value (RFC 8259) with nothing
// but white space around it, as json.Valid does, at any depth: json.Valid
// refuses values nested deeper than 10,000, and this is a transport's
// check, not a limit on what a server may accept. Its memory is one byte
// per open object or array.
func ValidJSON(data []byte) bool {
	var s scanner
	end, _ := s.value(data, SkipSpace(data, 0))
	return end >= 0 && SkipSpace(data, end) == len(data)
}

// validLiteral returns the index just past the number, true, false or null
// at data[i], or -1 when there is none. What follows is the caller's to
// check.
func validLiteral(data []byte, i int) int {
	switch data[i] {
	case 't':
		return literal(data, i, "true")
	case 'f':
		return literal(data, i, "false")
	case 'n':
		return literal(data, i, "null")
	}
	if data[i] == '-' {
		i++
	}
	switch {
	case i == len(data):
		return -1
	case data[i] == '0':
		i++
	default:
		if i = digits(data, i); i < 0 {
			return -1
		}
	}
	if i < len(data) && data[i] == '.' {
		if i = digits(data, i+1); i < 0 {
			return -1
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i = digits(data, i); i < 0 {
			return -1
		}
	}
	return i
}

// literal returns the index after lit at data[i], or -1 when it is not
// there.
func literal(data []byte, i int, lit string) int {
	if !bytes.HasPrefix(data[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

// digits returns the index after the decimal digits at data[i], or -1
// when there is none.
func digits(data []byte, i int) int {
	start := i
	for i < len(data) && '0' <= data[i] && data[i] <= '9' {
		i++
	}
	if i == start {
		return -1
	}
	return i
}

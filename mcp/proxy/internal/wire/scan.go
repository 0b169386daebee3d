package wire

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// scanLine reads line as one JSON-RPC message in one pass: it checks the
// syntax of everything but result and error (at any depth) and records the
// members the proxy reads, params' own and the arguments' depth and
// plainness, so that nothing reads the line again. ok is false unless the
// line is one well-formed object; Decode then reads it leniently. Result
// and error are skipped as Members does: those the proxy reads are parsed
// again where used.
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

// scanner checks JSON syntax, counting escapes and invalid UTF-8 in
// strings so that a caller can tell a plain value.
type scanner struct {
	escapes, impure int
	// values counts the JSON values scanned (see CallParams.Values).
	values int
}

// object reads the JSON object at data[i], calling member with each name
// and its value's index; member returns the index after the value, or -1.
// It returns the index after the object, or -1.
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

// value returns the index past the JSON value at data[i] and how deeply it
// nests (a scalar 0), or -1. Any depth: one byte of memory per level.
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
		// A value ended at i: what follows continues or closes its parents.
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

// memberStart reads a member's name and colon at data[i] and returns its
// value's index, or -1.
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

// specials flags with their high bit the bytes of the little-endian word x
// that str must look at (quote, backslash, control, non-ASCII); 0 for none.
// Each term is the classic zero-byte test: exact for the lowest flagged
// byte, the one str jumps to.
func specials(x uint64) uint64 {
	q := x ^ (ones * '"')
	b := x ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (x-ones*0x20)&^x | x) & highs
}

// str returns the index past the JSON string at data[i], or -1: no control
// character, only JSON's escapes, other bytes passing as json.Valid lets
// them; escapes and invalid UTF-8 are counted. Plain runs are skipped eight
// bytes at a time (byte by byte was most of a small message's scan, issue
// 29).
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

// ValidJSON reports whether data is one JSON value, as json.Valid does but
// at any depth (json.Valid refuses past 10,000: a transport's check must
// not limit what a server accepts).
func ValidJSON(data []byte) bool {
	var s scanner
	end, _ := s.value(data, SkipSpace(data, 0))
	return end >= 0 && SkipSpace(data, end) == len(data)
}

// validLiteral returns the index past the number or literal at data[i], or
// -1.
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

func literal(data []byte, i int, lit string) int {
	if !bytes.HasPrefix(data[i:], []byte(lit)) {
		return -1
	}
	return i + len(lit)
}

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

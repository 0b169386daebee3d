package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of objects and arrays that Decode and
// DecodeLocated accept (the root object is level 1); deeper documents are
// an error, found in one pass over the bytes before decoding.
//
// It is a structural bound, not the limit of arguments: schemas, lockfiles
// and arguments files are read here, and a schema legitimately nests
// deeper than the 64 levels arguments are held to (issues.DefaultMaxDepth,
// which the adapters and integrations check before they decode). 1000 is
// what go-sdk allows a whole JSON-RPC message, far beyond any real schema,
// and well short of the 10,000 encoding/json accepts, which would make
// what walks the tree afterwards (the JSON Schema compiler, the contract
// diff) slow for nothing.
const MaxDepth = 1000

// Decode reads one JSON value with exact numbers; anything but white space
// after it, or nesting deeper than MaxDepth, is an error.
func Decode(data []byte) (any, error) {
	if off := tooDeep(data); off >= 0 {
		return nil, fmt.Errorf("JSON nested deeper than %d levels (at byte %d)", MaxDepth, off)
	}
	if plain(data) {
		// One copy of the document; its strings and numbers are parts of it.
		doc := string(data)
		v, _ := parse(doc, skipSpace(doc, 0))
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("unexpected data after the JSON value at byte %d", dec.InputOffset())
	}
	return v, nil
}

// DecodeScanned is Decode for data a caller has checked in a pass of its
// own, so that nothing reads it again before parsing it: data must be one
// well-formed JSON value with white space only around it, nested no
// deeper than MaxDepth, whose strings hold no escape and only valid UTF-8.
// Its strings and numbers share one copy of data.
func DecodeScanned(data []byte) any {
	doc := string(data)
	v, _ := parse(doc, skipSpace(doc, 0))
	return v
}

// DecodeLocated is Decode for a document a person wrote and will mend (a
// schema, a lockfile, arguments in a file): its errors say where the
// document broke, by line and column.
func DecodeLocated(data []byte) (any, error) {
	if off := tooDeep(data); off >= 0 {
		line, col := position(data, int64(off))
		return nil, fmt.Errorf("JSON nested too deeply at line %d, column %d: more than %d levels of objects and arrays", line, col, MaxDepth)
	}
	if plain(data) {
		// One copy of the document; its strings and numbers are parts of it.
		doc := string(data)
		v, _ := parse(doc, skipSpace(doc, 0))
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, Located(data, err)
	}
	off := dec.InputOffset()
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		rest := data[off:]
		off += int64(len(rest) - len(bytes.TrimLeft(rest, " \t\r\n")))
		line, col := position(data, off)
		return nil, fmt.Errorf("malformed JSON at line %d, column %d: more data after the document", line, col)
	}
	return v, nil
}

// Located turns an error from decoding data with encoding/json into one
// that says where in data it broke.
func Located(data []byte, err error) error {
	if errors.Is(err, io.EOF) {
		return errors.New("empty document: want JSON")
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		// Offset counts the byte that broke the document; point at it.
		line, col := position(data, max(syn.Offset-1, 0))
		return fmt.Errorf("malformed JSON at line %d, column %d: %v", line, col, syn)
	}
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		line, col := position(data, max(typ.Offset-1, 0))
		what := typ.Field
		if what == "" {
			what = "value"
		}
		return fmt.Errorf("wrong JSON type at line %d, column %d: %s is a JSON %s, want %s", line, col, what, typ.Value, typ.Type)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		line, col := position(data, int64(len(data)))
		return fmt.Errorf("malformed JSON at line %d, column %d: unexpected end of input", line, col)
	}
	return fmt.Errorf("malformed JSON: %v", err)
}

// position turns a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = max(0, min(off, int64(len(data))))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	col = int(off) - bytes.LastIndexByte(before, '\n')
	return line, col
}

// tooDeep returns the offset of the bracket that opens level MaxDepth+1
// of data, or -1 when data nests no deeper than MaxDepth. Strings are
// skipped, so brackets inside them do not count; malformed data is
// scanned all the same (the decoder judges it next).
func tooDeep(data []byte) int {
	if len(data) <= MaxDepth {
		return -1 // too short to hold MaxDepth+1 brackets: no pass needed
	}
	depth := 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++ // the escaped byte, a quote included
				}
			}
		case '{', '[':
			if depth++; depth > MaxDepth {
				return i
			}
		case '}', ']':
			if depth > 0 {
				depth--
			}
		}
	}
	return -1
}

// plain reports whether data is one valid JSON value whose strings hold no
// escape and no invalid UTF-8: then every string is its bytes as written,
// and parse decodes data to exactly what encoding/json's decoder gives (with
// UseNumber), without the decoder's reader, buffer and second scan.
// Anything else (escapes, malformed JSON, trailing data) goes to the
// decoder, which also words the errors.
func plain(data []byte) bool {
	return bytes.IndexByte(data, '\\') < 0 && utf8.Valid(data) && json.Valid(data)
}

// parse decodes the value at data[i] of a plain document (see plain) and
// returns it with the offset after it, its strings and numbers sharing
// data's bytes: objects as map[string]any, arrays
// as []any (empty, not nil, for []), numbers as json.Number, as
// encoding/json does.
func parse(data string, i int) (any, int) {
	switch data[i] {
	case '{':
		m := make(map[string]any)
		i = skipSpace(data, i+1)
		if data[i] == '}' {
			return m, i + 1
		}
		for {
			end := i + 1 + strings.IndexByte(data[i+1:], '"')
			key := data[i+1 : end]
			i = skipSpace(data, end+1) + 1 // past the colon
			var v any
			v, i = parse(data, skipSpace(data, i))
			m[key] = v
			i = skipSpace(data, i)
			if data[i] == '}' {
				return m, i + 1
			}
			i = skipSpace(data, i+1) // past the comma
		}
	case '[':
		a := make([]any, 0)
		i = skipSpace(data, i+1)
		if data[i] == ']' {
			return a, i + 1
		}
		for {
			var v any
			v, i = parse(data, i)
			a = append(a, v)
			i = skipSpace(data, i)
			if data[i] == ']' {
				return a, i + 1
			}
			i = skipSpace(data, i+1)
		}
	case '"':
		end := i + 1 + strings.IndexByte(data[i+1:], '"')
		return data[i+1 : end], end + 1
	case 't':
		return true, i + 4
	case 'f':
		return false, i + 5
	case 'n':
		return nil, i + 4
	}
	end := i + 1
	for end < len(data) && (data[end] >= '0' && data[end] <= '9' || data[end] == '.' || data[end] == 'e' || data[end] == 'E' || data[end] == '+' || data[end] == '-') {
		end++
	}
	return json.Number(data[i:end]), end
}

// skipSpace returns the offset of the first byte at or after i that is not
// JSON white space.
func skipSpace(data string, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

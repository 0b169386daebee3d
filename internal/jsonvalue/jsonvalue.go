// Package jsonvalue decodes one JSON value the way every part of the module
// reads arguments and schemas: numbers kept exactly as written
// (json.Number), and nothing but white space allowed after the value.
package jsonvalue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Decode reads one JSON value with exact numbers; anything but white space
// after it is an error.
func Decode(data []byte) (any, error) {
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

// DecodeLocated is Decode for a document a person wrote and will mend (a
// schema, a lockfile, arguments in a file): its errors say where the
// document broke, by line and column.
func DecodeLocated(data []byte) (any, error) {
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

package wire

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/jsonvalue"
)

// TestScanLine: what one pass finds in real lines, and the lines it
// refuses (decode then reads them leniently, not valid).
func TestScanLine(t *testing.T) {
	type want struct {
		ok, valid                       bool
		id, method, result, error, args string
		name, meta, cursor              string
		depth                           int
		plain, paramsObject             bool
	}
	for _, tc := range []struct {
		in   string
		want want
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{"a":[1,{"b":2}]}}}`,
			want{ok: true, valid: true, id: `1`, method: `"tools/call"`, name: "w", args: `{"a":[1,{"b":2}]}`, depth: 3, plain: true, paramsObject: true}},
		// The TypeScript SDK's order: id last.
		{`{"result":{"tools":[]},"jsonrpc":"2.0","id":0}` + "\n",
			want{ok: true, id: `0`, result: `{"tools":[]}`}},
		{`{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"m"}}`,
			want{ok: true, id: `"x"`, error: `{"code":-32602,"message":"m"}`}},
		// Escaped member names are the names any parser reads.
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","\u0070arams":{"n\u0061me":"w","\u0061rguments":{"p":"\u00e9"}}}`,
			want{ok: true, valid: true, id: `1`, method: `"tools/call"`, name: "w", args: `{"p":"\u00e9"}`, depth: 1, paramsObject: true}},
		// params null is no params object; a later params replaces one.
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":null}`,
			want{ok: true, valid: true, id: `1`, method: `"tools/call"`}},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a"},"params":{"name":"b","cursor":"c","_meta":{}}}`,
			want{ok: true, valid: true, id: `1`, method: `"tools/call"`, name: "b", cursor: `"c"`, meta: `{}`, paramsObject: true}},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":"x\ud800"}}`,
			want{ok: true, valid: true, id: `1`, method: `"tools/call"`, name: "a", args: `"x\ud800"`, paramsObject: true}},
		{"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"arguments\":[\"\xff\"]}}",
			want{ok: true, valid: true, id: `1`, method: `"m"`, args: "[\"\xff\"]", depth: 1, paramsObject: true}},
		// Refused: malformed outside result and error, not an object.
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"a","arguments":{"a":01}}}`, want{}},
		{`{"jsonrpc":"2.0","id":1,"method":"x",}`, want{}},
		{`{"jsonrpc":"2.0","id":1,"method":"x"} x`, want{}},
		{`{"jsonrpc":"2.0","method":"a` + "\t" + `"}`, want{}},
		{`[{"jsonrpc":"2.0","method":"x"}]`, want{}},
		{``, want{}},
		{`{"jsonrpc":"2.0","id":1,"result":{"a":"`, want{}},
	} {
		m, ok := scanLine([]byte(tc.in))
		got := want{ok: ok, valid: m.Valid, id: string(m.ID), method: string(m.RawMethod), result: string(m.Result), error: string(m.Error),
			args: string(m.Call.Args), name: m.Call.Name, meta: string(m.Call.Meta), cursor: string(m.Call.Cursor),
			depth: m.Call.Depth, plain: m.Call.Plain, paramsObject: m.ParamsObject}
		if got != tc.want {
			t.Errorf("%s:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
}

// TestStrEveryOffset: str jumps over ordinary bytes a word at a time to
// the first one it must look at, wherever it falls in a word: a string
// ending, an escape, a control character, UTF-8 valid or not, at every
// offset from 0 to 17, with a word's worth of bytes after the string (the
// rest of a line) or none. Its end and its counts are the ones a byte by
// byte reading gives: json.Valid judges the string, and its escapes and
// invalid sequences are counted as they are written.
func TestStrEveryOffset(t *testing.T) {
	for _, tc := range []struct {
		special         string
		escapes, impure int
	}{
		{``, 0, 0},
		{`\n`, 1, 0},
		{`\"`, 1, 0},
		{`\u00e9`, 1, 0},
		{"é", 0, 0},
		{"\xff", 0, 1},
		{"\x01", 0, 0}, // a control character: not a string
		{`\x`, 1, 0},   // not an escape of JSON's
	} {
		for n := range 18 {
			for _, rest := range []string{"", `,"k":12345}`} {
				str := `"` + strings.Repeat("a", n) + tc.special + `b"`
				data := []byte(str + rest)
				var s scanner
				end := s.str(data, 0)
				want := -1
				if json.Valid([]byte(str)) {
					want = len(str)
				}
				if end != want || (want > 0 && (s.escapes != tc.escapes || s.impure != tc.impure)) {
					t.Errorf("%q: end %d, escapes %d, impure %d; want %d, %d, %d", data, end, s.escapes, s.impure, want, tc.escapes, tc.impure)
				}
			}
		}
	}
}

// TestScanDeep: the scan reads any depth, in memory of one byte a level,
// and measures the arguments' depth exactly.
func TestScanDeep(t *testing.T) {
	for _, n := range []int{1, 63, 64, 65, 1000, 10001, 100000} {
		args := strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)
		line := []byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","arguments":` + args + `}}`)
		m, ok := scanLine(line)
		if !ok || !m.Valid || !m.Call.Scanned || m.Call.Depth != n {
			t.Errorf("%d deep: ok %v, valid %v, depth %d", n, ok, m.Valid, m.Call.Depth)
		}
		if _, ok := scanLine(line[:len(line)-1]); ok {
			t.Errorf("%d deep, one brace short: read", n)
		}
	}
}

// FuzzScanLine compares scanLine with encoding/json: on a line json.Valid
// takes it agrees (an object with result and error absent is valid), the
// members and params' members it finds are those json.Unmarshal finds, the
// arguments' depth is their nesting, and arguments called plain decode
// with jsonvalue.DecodeScanned to what jsonvalue.Decode gives. (Seeds in
// testdata/fuzz/FuzzScanLine; run with go test -fuzz FuzzScanLine
// ./mcp/proxy/.)
func FuzzScanLine(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if nesting(data) >= 10000 {
			return
		}
		m, ok := scanLine(data)
		var obj map[string]json.RawMessage
		isObject := json.Unmarshal(data, &obj) == nil && obj != nil
		if !isObject {
			if ok && m.Valid {
				t.Fatalf("scanLine calls %q valid", data)
			}
			return
		}
		if !ok {
			t.Fatalf("scanLine refuses the object %q", data)
		}
		if m.Valid != (obj["result"] == nil && obj["error"] == nil) {
			t.Fatalf("%q: valid %v", data, m.Valid)
		}
		for key, got := range map[string][]byte{"id": m.ID, "jsonrpc": m.Version, "method": m.RawMethod, "params": m.Params, "result": m.Result, "error": m.Error} {
			if !bytes.Equal(got, bytes.TrimSpace(obj[key])) {
				t.Fatalf("%q: %s %q, want %q", data, key, got, obj[key])
			}
		}
		var params map[string]json.RawMessage
		if json.Unmarshal(obj["params"], &params) != nil || params == nil {
			if m.ParamsObject {
				t.Fatalf("%q: params read as an object", data)
			}
			return
		}
		var name string
		_ = json.Unmarshal(params["name"], &name)
		args := bytes.TrimSpace(params["arguments"])
		if !m.ParamsObject || m.Call.Name != name || !bytes.Equal(m.Call.Args, args) ||
			!bytes.Equal(m.Call.Meta, bytes.TrimSpace(params["_meta"])) || !bytes.Equal(m.Call.Cursor, bytes.TrimSpace(params["cursor"])) {
			t.Fatalf("%q: params %+v", data, m.Call)
		}
		if args == nil {
			return
		}
		if m.Call.Depth != nesting(args) {
			t.Fatalf("%q: arguments %d deep, want %d", data, m.Call.Depth, nesting(args))
		}
		if m.Call.Plain {
			want, err := jsonvalue.Decode(args)
			if err != nil {
				t.Fatalf("%q: plain arguments Decode refuses: %v", data, err)
			}
			if got := jsonvalue.DecodeScanned(args); !reflect.DeepEqual(got, want) {
				t.Fatalf("%q: DecodeScanned %#v, Decode %#v", data, got, want)
			}
		}
	})
}

// TestArgumentValues: Decode counts the JSON values of the arguments, each
// object, array and scalar, at any depth, and nothing outside them.
func TestArgumentValues(t *testing.T) {
	for _, tc := range []struct {
		args string
		want int
	}{
		{`{}`, 1},
		{`[]`, 1},
		{`"s"`, 1},
		{`{"a":1}`, 2},
		{`{"a":[1,2,3]}`, 5},
		{`{"a":[1,{"b":"x","c":null}],"d":true}`, 7},
		{`{"xs":[` + strings.Repeat(`1,`, 999) + `1]}`, 1002},
	} {
		line := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","_meta":{"k":[1,2]},"arguments":` + tc.args + `}}`
		m, ok := Decode([]byte(line))
		if !ok || !m.Call.Scanned || m.Call.Values != tc.want {
			t.Errorf("%.40s: ok %v, scanned %v, %d values, want %d", tc.args, ok, m.Call.Scanned, m.Call.Values, tc.want)
		}
	}
}

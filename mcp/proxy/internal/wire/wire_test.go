package wire

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// A response matches its request whatever either side's spelling of the
// id; ids that no response could carry are not tracked.
func TestIDKey(t *testing.T) {
	same := [][]string{
		{`1`, `1.0`, `1e0`, `10e-1`, `1.00`},
		{`0`, `-0`, `0.0`},
		{`-5`, `-5.0`, `-0.5e1`},
		{`"a"`, `"\u0061"`},
		{`"é"`, `"\u00e9"`},
		{"\"\xff\"", `"\ufffd"`}, // as encoding/json reads invalid UTF-8
		{`""`},
		{`9007199254740993`},
		{`9007199254740992`},
		{`1.5`, `15e-1`},
		{`"1"`},
	}
	seen := map[string]string{}
	for _, group := range same {
		key, ok := IDKey(json.RawMessage(group[0]))
		if !ok {
			t.Errorf("%s: not an id", group[0])
			continue
		}
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share the key %q", group[0], other, key)
		}
		seen[key] = group[0]
		for _, id := range group[1:] {
			if k, ok := IDKey(json.RawMessage(id)); !ok || k != key {
				t.Errorf("%s: key %q, want %q (as %s)", id, k, key, group[0])
			}
		}
	}
	for _, id := range []string{``, `null`, `true`, `{}`, `[1]`, `"unterminated`, `"a"b"`, "\"\t\"", `-`, `1x`} {
		if k, ok := IDKey(json.RawMessage(id)); ok {
			t.Errorf("%q: key %q, want none", id, k)
		}
	}
}

// Lines of any length come out whole, the last one without its newline;
// a buffer grown for a huge line is let go once lines no longer need it.
func TestLineReader(t *testing.T) {
	huge := strings.Repeat("h", 3*keepSize)
	long := strings.Repeat("l", ReadSize+10)
	input := "a\n" + long + "\n\n" + huge + "\nb\nc\n" + long + "\nlast"
	lr := NewLineReader(strings.NewReader(input))
	var got []string
	for {
		line, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(line))
		if len(got) >= 2 && len(line) < ReadSize && len(got[len(got)-2]) < ReadSize && cap(lr.buf) > keepSize {
			t.Errorf("a buffer of %d bytes kept after two short lines", cap(lr.buf))
		}
	}
	want := []string{"a\n", long + "\n", "\n", huge + "\n", "b\n", "c\n", long + "\n", "last"}
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d: %.40q (%d bytes), want %.40q (%d bytes)", i, got[i], len(got[i]), want[i], len(want[i]))
		}
	}
	if _, err := lr.Next(); err != io.EOF {
		t.Errorf("after the end: %v", err)
	}
}

// A read error ends the lines with that error.
func TestLineReaderError(t *testing.T) {
	lr := NewLineReader(io.MultiReader(strings.NewReader("a\npartial"), errReader{}))
	if line, err := lr.Next(); err != nil || string(line) != "a\n" {
		t.Fatalf("%q %v", line, err)
	}
	if _, err := lr.Next(); err != io.ErrUnexpectedEOF {
		t.Fatalf("got %v", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, io.ErrUnexpectedEOF }

// members finds each top-level member of an object, whatever the values
// hold, and refuses what is not one object.
func TestMembers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // key=value pairs, or "!" when refused
	}{
		{`{}`, ``},
		{` { } `, ``},
		{`{"a":1}`, `a=1;`},
		{"{\"a\" :\t\"x\\\"}\" , \"b\":[1,{\"c\":\"]\"}],\"d\":{\"e\":null},\"f\":true}\r\n",
			`a="x\"}";b=[1,{"c":"]"}];d={"e":null};f=true;`},
		{`{"a\\":"b\\\\"}`, `a\="b\\\\";`},
		{`{"a":-1.5e3,"b":"` + strings.Repeat("x", 100000) + `"}`, `a=-1.5e3;b="` + strings.Repeat("x", 100000) + `";`},
		// Names as any JSON parser reads them: escapes undone, a name
		// given twice given twice (the last one wins where it is kept).
		{`{"\u0061rguments":{},"n\u0061me":"x","\/":1}`, `arguments={};name="x";/=1;`},
		{`{"a":1,"a":2}`, `a=1;a=2;`},
		{`{"\ud83d\ude00":1,"\u00e9":2}`, "\U0001F600=1;\u00e9=2;"},
		{`{"bad\x":1}`, `bad\x=1;`}, // not JSON: given as written; the receiver refuses the message
		{``, `!`},
		{`[]`, `!`},
		{`{"a":1}{}`, `!`},
		{`{"a":1} x`, `!`},
		{`{"a":1,}`, `!`},
		{`{"a"}`, `!`},
		{`{"a":}`, `!`},
		{`{a:1}`, `!`},
		{`{"a":"unterminated}`, `!`},
		{`{"a":[1,2}`, `!`},
		{`{"a":1`, `!`},
		{`{"a":"\"}`, `!`},
		{`"just a string"`, `!`},
	} {
		var got strings.Builder
		ok := Members([]byte(tc.in), func(k, v []byte) { got.WriteString(string(k) + "=" + string(v) + ";") })
		if !ok {
			got.Reset()
			got.WriteString("!")
		}
		if got.String() != tc.want {
			t.Errorf("%.60q: got %.80q, want %.80q", tc.in, got.String(), tc.want)
		}
	}
}

// decode reads JSON-RPC 2.0 messages only, with exact keys.
func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in       string
		ok       bool
		method   string
		response bool
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call"}`, true, "tools/call", false},
		{`{"jsonrpc":"2.0","id":1,"method":"tools\/call"}`, true, "tools/call", false},
		{`{"jsonrpc":"\u0032.0","id":1,"method":"ping"}`, true, "ping", false},
		{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`, true, "notifications/tools/list_changed", false},
		{`{"jsonrpc":"2.0","method":"tools/callx"}`, true, "tools/callx", false},
		{`{"jsonrpc":"2.0","method":""}`, true, "", false},
		{`{"jsonrpc":"2.0","id":1,"result":null}`, true, "", true},
		{`{"jsonrpc":"2.0","id":1,"error":{}}`, true, "", true},
		{`{"jsonrpc":"2.0","id":1,"method":"x","result":{}}`, true, "x", false},
		{`{"jsonrpc":"2.0","method":5}`, false, "", false},
		{`{"jsonrpc":"1.0","method":"x"}`, false, "", false},
		{`{"JSONRPC":"2.0","method":"x"}`, false, "", false},
		{`{"jsonrpc":"2.0","Method":"x","id":1}`, true, "", false},
		{`[{"jsonrpc":"2.0","method":"x"}]`, false, "", false},
	} {
		m, ok := Decode([]byte(tc.in))
		if ok != tc.ok || (ok && (m.Method != tc.method || m.IsResponse() != tc.response)) {
			t.Errorf("%s: %+v %v", tc.in, m, ok)
		}
	}
}

// DecodeTo reads a line into the caller's Message without allocating one;
// a tools/call costs one allocation, its tool's name, and the lines the
// stdio proxy passes (results, notifications) none. AllocsPerRun guards
// what the per-message cost of issue 29 removed.
func TestDecodeToAllocs(t *testing.T) {
	for _, tc := range []struct {
		line   string
		allocs float64
	}{
		{`{"jsonrpc":"2.0","id":"c1","result":{"content":[{"type":"text","text":"wrote 66 bytes"}]}}` + "\n", 0},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":-32602,"message":"Invalid arguments"}}` + "\n", 0},
		{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":5}}` + "\n", 0},
		{`{"jsonrpc":"2.0","id":"c1","method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a","content":"x"}}}` + "\n", 1},
	} {
		line := []byte(tc.line)
		var m Message
		got := testing.AllocsPerRun(100, func() {
			if !DecodeTo(line, &m) {
				t.Fatalf("%s: not decoded", line)
			}
		})
		if got != tc.allocs {
			t.Errorf("%.50s: %v allocations, want %v", line, got, tc.allocs)
		}
	}
}

// AppendIDKey and AppendAnswerable append the keys IDKey and Answerable
// return, to what dst holds, and leave dst as it was when there is none.
func TestAppendIDKey(t *testing.T) {
	for _, id := range []string{`"a"`, `"\u0061"`, `""`, `7`, `-0`, `1.0`, `1e0`, `1.5`, `9007199254740993`, `1e400`, `null`, `true`, ``, `"x`} {
		key, ok := IDKey([]byte(id))
		got, gotOK := AppendIDKey([]byte("pre"), []byte(id))
		if gotOK != ok || string(got) != "pre"+key {
			t.Errorf("AppendIDKey(%s) = %q %v, want %q %v", id, got, gotOK, "pre"+key, ok)
		}
		key, ok = Answerable([]byte(id))
		got, gotOK = AppendAnswerable([]byte("pre"), []byte(id))
		if gotOK != ok || string(got) != "pre"+key {
			t.Errorf("AppendAnswerable(%s) = %q %v, want %q %v", id, got, gotOK, "pre"+key, ok)
		}
	}
	for id, want := range map[string]string{`"a"`: "sa", `1.0`: "n1", `1.5`: "", `1e400`: "", `"\u0061"`: "sa"} {
		if key, _ := Answerable([]byte(id)); key != want {
			t.Errorf("Answerable(%s) = %q, want %q", id, key, want)
		}
	}
}

// FuzzMembers checks members against encoding/json: on any JSON object it
// finds the members json.Unmarshal finds, by the same names (escapes
// undone), with the same values, and it
// accepts nothing that is not an object. (Run with go test -fuzz
// FuzzMembers ./mcp/proxy/.)
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{}`, `{"a":1,"b":[{"c":"\"]"}],"d":"\\"}`, `{"a":{"b":{"c":[[]]}}}`, ` {"a" : -0.5e-3 } `, `{"a":"\u00e9\ud800"}`, `[1]`, `{"a":1,}`, `{"\u0061":1,"a":2}`, `{"\ud800x":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []string
		ok := Members(data, func(k, v []byte) { got = append(got, string(k), string(v)) })
		var want map[string]json.RawMessage
		isObject := json.Unmarshal(data, &want) == nil && want != nil
		if !isObject {
			if ok && json.Valid(data) {
				t.Fatalf("members accepts %q, which is not an object", data)
			}
			return // malformed: members may accept it, the receiver will not
		}
		if !ok {
			t.Fatalf("members refuses the object %q", data)
		}
		last := map[string]string{} // the last value of each key, as Unmarshal keeps it
		for i := 0; i < len(got); i += 2 {
			last[got[i]] = got[i+1] // the name as Unmarshal reads it
		}
		if len(last) != len(want) {
			t.Fatalf("%q: %d keys, want %d", data, len(last), len(want))
		}
		for k, v := range want {
			if !bytes.Equal(bytes.TrimSpace(v), []byte(last[k])) {
				t.Fatalf("%q: key %q: %q, want %q", data, k, last[k], v)
			}
		}
	})
}

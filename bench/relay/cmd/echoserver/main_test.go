package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestServeStdio(t *testing.T) {
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"two","method":"tools/list"}`,
		// Escaped quotes and backslashes in a string the server skips.
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_file","arguments":{"content":"a\"b\\\\\"c\\\\","path":"/a"}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"write_file","arguments":{"path":7,"content":"x"}}}`,
		`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"write_file","arguments":{"path":"/a"}}}`,
		` { "jsonrpc" : "2.0" , "id" : 6 , "method" : "tools/call" , "params" : { "name" : "read" , "arguments" : { "size" : 100 } } } `,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"read","arguments":{"size":` + "200000" + `}}}`,
		`{"jsonrpc":"2.0","id":8,"method":"nothing"}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	if err := serveStdio(strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	want := []string{
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25",`,
		`{"jsonrpc":"2.0","id":"two","result":{"tools":[{"name":"write_file",`,
		`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"wrote 17 bytes"}]}}`,
		`{"jsonrpc":"2.0","id":4,"error":{"code":-32602,"message":"Invalid arguments for tool write_file: path: Expected string, received number"}}`,
		`{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"Invalid arguments for tool write_file: content: Required"}}`,
		`{"jsonrpc":"2.0","id":6,"result":{"content":[{"type":"text","text":"xxx`,
		`{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"xxx`,
		`{"jsonrpc":"2.0","id":8,"error":{"code":-32601,`,
	}
	if len(lines) != len(want) {
		t.Fatalf("%d answers, want %d:\n%s", len(lines), len(want), out.String())
	}
	for i, l := range lines {
		if !strings.HasPrefix(l, want[i]) {
			t.Errorf("answer %d: %.200s\nwant %s", i, l, want[i])
		}
		if !json.Valid([]byte(l)) {
			t.Errorf("answer %d is not JSON: %.200s", i, l)
		}
	}
	for i, size := range map[int]int{5: 100, 6: 200000} {
		var m struct{ Result json.RawMessage }
		if err := json.Unmarshal([]byte(lines[i]), &m); err != nil || len(m.Result) != size {
			t.Errorf("answer %d: a result of %d bytes, want %d (%v)", i, len(m.Result), size, err)
		}
	}
	var list struct {
		Result struct{ Tools []struct{ Name string } }
	}
	if err := json.Unmarshal([]byte(lines[1]), &list); err != nil || len(list.Result.Tools) != 2 {
		t.Errorf("tools/list: %v %s", err, lines[1])
	}
}

package eventstream

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// scan feeds stream to an sseScanner in chunks of n bytes (the whole
// stream at once for n == 0) and returns the events it gave, one per line.
func scan(stream string, n int) string {
	var got []string
	sc := NewScanner(func(ev *Event) {
		got = append(got, fmt.Sprintf("%q %q %q", ev.Type, ev.ID, ev.Data))
	})
	b := []byte(stream)
	if n == 0 {
		n = len(b) + 1
	}
	for len(b) > 0 {
		k := min(n, len(b))
		sc.Write(b[:k])
		b = b[k:]
	}
	return strings.Join(got, "\n")
}

func TestSSEScanner(t *testing.T) {
	for _, tc := range []struct {
		name, stream, want string
	}{
		{"one message", "event: message\ndata: {\"a\":1}\n\n", `"message" "" "{\"a\":1}"`},
		{"no type, CRLF", "data: x\r\n\r\n", `"" "" "x"`},
		{"CR alone", "data: x\r\rdata: y\r\r", "\"\" \"\" \"x\"\n\"\" \"\" \"y\""},
		{"two data lines", "data: a\ndata: b\n\n", `"" "" "a\nb"`},
		{"no space after colon", "data:x\n\n", `"" "" "x"`},
		{"two spaces keep one", "data:  x\n\n", `"" "" " x"`},
		{"comment and retry ignored", ": ping\nretry: 10\ndata: x\n\n", `"" "" "x"`},
		{"id kept for the next event", "id: 7\ndata: a\n\ndata: b\n\n", "\"\" \"7\" \"a\"\n\"\" \"7\" \"b\""},
		{"id with NUL ignored", "id: a\x00b\ndata: a\n\n", `"" "" "a"`},
		{"type reset after each event", "event: x\ndata: a\n\ndata: b\n\n", "\"x\" \"\" \"a\"\n\"\" \"\" \"b\""},
		{"no data, no event", "event: x\n\ndata: b\n\n", `"" "" "b"`},
		{"empty data is an event", "data\n\n", `"" "" ""`},
		{"unfinished event not given", "data: a\n", ``},
		{"field without colon", "data\ndata: b\n\n", `"" "" "\nb"`},
	} {
		for _, n := range []int{0, 1, 2, 3, 7} {
			if got := scan(tc.stream, n); got != tc.want {
				t.Errorf("%s, chunks of %d:\n%s\nwant\n%s", tc.name, n, got, tc.want)
			}
		}
	}
}

// writeEvent's output reads back as the message it carries.
func TestWriteEvent(t *testing.T) {
	for _, tc := range []struct {
		id, msg, want string
	}{
		{"", "{\"a\":1}\n", "event: message\ndata: {\"a\":1}\n\n"},
		{"5", "{}", "event: message\nid: 5\ndata: {}\n\n"},
		{"", "a\r\nb\rc\nd", "event: message\ndata: a\ndata: b\ndata: c\ndata: d\n\n"},
	} {
		var b bytes.Buffer
		if err := WriteEvent(&b, tc.id, []byte(tc.msg)); err != nil {
			t.Fatal(err)
		}
		if b.String() != tc.want {
			t.Errorf("WriteEvent(%q, %q) = %q, want %q", tc.id, tc.msg, b.String(), tc.want)
		}
		var data string
		NewScanner(func(ev *Event) { data = string(ev.Data) }).Write(b.Bytes())
		if want := strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(strings.TrimRight(tc.msg, "\r\n")); data != want {
			t.Errorf("read back %q, want %q", data, want)
		}
	}
}

func FuzzSSEScanner(f *testing.F) {
	f.Add("event: message\ndata: {\"a\":1}\n\n", 3)
	f.Add("data: a\r\ndata: b\r\r\n\nid: 1\ndata\n\n", 1)
	f.Fuzz(func(t *testing.T, stream string, n int) {
		if n <= 0 || n > 64 {
			n = 1
		}
		if whole, chunked := scan(stream, 0), scan(stream, n); whole != chunked {
			t.Errorf("chunks of %d change the events:\n%s\nwant\n%s", n, chunked, whole)
		}
	})
}

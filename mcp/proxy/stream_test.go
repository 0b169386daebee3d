package proxy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"hash"
	"io"
	"runtime"
	"strings"
	"testing"
)

// filler reads n bytes of 'x', without holding them.
type filler struct{ n int }

func (f *filler) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, io.EOF
	}
	k := min(len(p), f.n)
	for i := range p[:k] {
		p[i] = 'x'
	}
	f.n -= k
	return k, nil
}

// streamSpec is a stream of lines, one of which (if n > 0) has n bytes of
// 'x' between before and after.
type streamSpec struct {
	before string
	n      int
	after  string
}

func (s streamSpec) reader() io.Reader {
	return io.MultiReader(strings.NewReader(s.before), &filler{s.n}, strings.NewReader(s.after))
}

func (s streamSpec) size() int { return len(s.before) + s.n + len(s.after) }

func (s streamSpec) sum() []byte {
	h := sha256.New()
	_, _ = io.Copy(h, s.reader())
	return h.Sum(nil)
}

// hashWriter hashes what it is given, and says on full when it has had
// want bytes.
type hashWriter struct {
	h    hash.Hash
	n    int
	want int
	full chan struct{}
	// started, when not nil, is closed once start bytes have been written.
	start   int
	started chan struct{}
}

func (w *hashWriter) Write(p []byte) (int, error) {
	w.h.Write(p)
	if w.started != nil && w.n < w.start && w.n+len(p) >= w.start {
		close(w.started)
	}
	w.n += len(p)
	if w.n == w.want {
		close(w.full)
	}
	return len(p), nil
}

// TestStreamed: long lines the proxy does not read pass through with its
// readers' buffers only, whatever their size; those it reads are gathered
// whole. Either way every byte passes, in order. Memory is measured as the
// bytes allocated while Serve runs.
func TestStreamed(t *testing.T) {
	const size = 16 << 20
	const bounded = 1 << 20 // the streamed lines' bound: a few buffers
	list := `{"jsonrpc":"2.0","id":0,"method":"tools/list"}` + "\n"
	// A call of a tool the proxy has not learned waits for a listing (see
	// awaitListing): the calls here are of a listed tool, whose listing the
	// server answers at once (early) while the rest waits for the client's
	// lines.
	listed := `{"jsonrpc":"2.0","id":0,"result":{"tools":[{"name":"w","inputSchema":{"type":"object"}}]}}` + "\n"
	for _, tc := range []struct {
		name           string
		client, server streamSpec
		streamed       bool
		early          string
	}{
		{"result", streamSpec{}, streamSpec{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`, size, `"}]}}` + "\n"}, true, ""},
		{"result, id last", streamSpec{}, streamSpec{`{"result":{"content":[{"type":"text","text":"`, size, `"}]},"jsonrpc":"2.0","id":1}` + "\n{}\n"}, true, ""},
		{"result, id last, a list pending", streamSpec{list, 0, ""}, streamSpec{`{"result":{"tools":[],"x":"`, size, `"},"jsonrpc":"2.0","id":0}` + "\n"}, false, ""},
		{"result of another id, a list pending", streamSpec{list, 0, ""}, streamSpec{`{"jsonrpc":"2.0","id":7,"result":{"x":"`, size, `"}}` + "\n"}, true, ""},
		{"the list's result", streamSpec{list, 0, ""}, streamSpec{`{"jsonrpc":"2.0","id":0,"result":{"tools":[],"x":"`, size, `"}}` + "\n"}, false, ""},
		{"server's notification", streamSpec{}, streamSpec{`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`, size, `"}}` + "\n"}, true, ""},
		{"list_changed", streamSpec{}, streamSpec{`{"jsonrpc":"2.0","method":"notifications/tools/list_changed","params":{"x":"`, size, `"}}` + "\n"}, false, ""},
		{"not JSON", streamSpec{}, streamSpec{"a", size, "\nb\n"}, true, ""},
		{"cut short", streamSpec{}, streamSpec{`{"jsonrpc":"2.0","id":1,"result":"`, size, ``}, true, ""},
		{"client's notification", streamSpec{`{"jsonrpc":"2.0","method":"notifications/progress","params":{"x":"`, size, `"}}` + "\n"}, streamSpec{}, true, ""},
		{"client's response", streamSpec{`{"jsonrpc":"2.0","result":{"x":"`, size, `"},"id":"s1"}` + "\n"}, streamSpec{}, true, ""},
		{"call", streamSpec{list + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"w","arguments":{"x":"`, size, `"}}}` + "\n"}, streamSpec{}, false, listed},
		{"method last", streamSpec{list + `{"jsonrpc":"2.0","id":1,"params":{"name":"w","arguments":{"x":"`, size, `"}},"method":"tools/call"}` + "\n"}, streamSpec{}, false, listed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New()
			if err != nil {
				t.Fatal(err)
			}
			toClient := &hashWriter{h: sha256.New(), want: len(tc.early) + tc.server.size(), full: make(chan struct{})}
			toServer := &hashWriter{h: sha256.New(), want: tc.client.size(), full: make(chan struct{})}
			if toServer.want == 0 {
				close(toServer.full)
			}
			sr, sw := io.Pipe()
			if tc.early != "" {
				// The listing is answered once the server has its request.
				toServer.start, toServer.started = len(list), make(chan struct{})
			}
			go func() {
				if tc.early != "" {
					<-toServer.started
					_, _ = io.WriteString(sw, tc.early)
				}
				<-toServer.full // the client's lines first, then the server's
				_, _ = io.Copy(sw, tc.server.reader())
				sw.Close()
			}()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			err = p.Serve(context.Background(), tc.client.reader(), toClient, sr, toServer)
			runtime.ReadMemStats(&after)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(toServer.h.Sum(nil), tc.client.sum()) || toServer.n != tc.client.size() {
				t.Errorf("the server got %d bytes, not the client's %d", toServer.n, tc.client.size())
			}
			if !bytes.Equal(toClient.h.Sum(nil), streamSpec{tc.early + tc.server.before, tc.server.n, tc.server.after}.sum()) || toClient.n != toClient.want {
				t.Errorf("the client got %d bytes, not the server's %d", toClient.n, toClient.want)
			}
			held := after.TotalAlloc - before.TotalAlloc
			if tc.streamed && held > bounded {
				t.Errorf("streamed with %d bytes allocated, want at most %d", held, bounded)
			}
			if !tc.streamed && held < size {
				t.Errorf("%d bytes allocated: not gathered whole", held)
			}
		})
	}
}

// TestReadHead: what the first bytes of a long line show, cut anywhere.
func TestReadHead(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want head
	}{
		{`{"jsonrpc":"2.0","id":12,"result":{"x":"abc`, head{object: true, id: []byte(`12`), response: true}},
		{`{"jsonrpc":"2.0","id":12`, head{object: true}}, // 12 may go on
		{`{"result":{"x":"abc`, head{object: true, response: true}},
		{`{"\u006dethod":"tools/call","params":{"x":"`, head{object: true, hasMethod: true, method: []byte(`"tools/call"`)}},
		{`{"method":"tools/ca`, head{object: true, hasMethod: true}},
		{` {"id":"a","error":{"code":1`, head{object: true, id: []byte(`"a"`), response: true}},
		{`[{"id":1}`, head{}},
		{`xxxx`, head{}},
	} {
		got := readHead([]byte(tc.in))
		if got.object != tc.want.object || string(got.id) != string(tc.want.id) || string(got.method) != string(tc.want.method) ||
			got.hasMethod != tc.want.hasMethod || got.response != tc.want.response {
			t.Errorf("%s: %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

// countWriter counts the writes it is given, and keeps their bytes; full
// is closed when it has want of them.
type countWriter struct {
	writes int
	bytes.Buffer
	want int
	full chan struct{}
}

func (w *countWriter) Write(p []byte) (int, error) {
	w.writes++
	n, err := w.Buffer.Write(p)
	if w.Len() == w.want {
		close(w.full)
	}
	return n, err
}

// TestBatched: lines that arrive together leave together, in few writes,
// each direction, unchanged; a proxy's answer among them keeps its place.
func TestBatched(t *testing.T) {
	var client, server strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&client, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":%d}}`+"\n", i)
		fmt.Fprintf(&server, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", i)
	}
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	toClient := &countWriter{want: server.Len(), full: make(chan struct{})}
	toServer := &countWriter{want: client.Len(), full: make(chan struct{})}
	sr, sw := io.Pipe()
	go func() {
		_, _ = io.WriteString(sw, server.String()) // in one write: one read takes many lines
		<-toServer.full                            // Serve returns at the server's end
		sw.Close()
	}()
	if err := p.Serve(context.Background(), strings.NewReader(client.String()), toClient, sr, toServer); err != nil {
		t.Fatal(err)
	}
	if toClient.String() != server.String() || toServer.String() != client.String() {
		t.Fatal("lines changed")
	}
	// 1000 lines of 40 to 90 bytes: 2 reads of 64 KiB at most, each
	// batch at most 64 KiB.
	if toClient.writes > 4 || toServer.writes > 4 {
		t.Errorf("%d writes to the client, %d to the server, for 1000 lines each", toClient.writes, toServer.writes)
	}
}

package proxy

import (
	"bytes"
	"errors"
	"io"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// tap reads a stream's events as they pass. When a request's stream fails
// before its response, or ends without it and without an event id to
// resume from, the tap ends it with a JSON-RPC error, so that no call
// hangs. The stream of a call forwarded with issues holds each event until
// its end, so that a rejection is replaced whole.
func (h *httpProxy) tap(body io.ReadCloser, x *exchange) io.ReadCloser {
	b := x.batch
	t := &sseTap{body: body, x: x, holding: x.explain != nil || b != nil && len(b.explain) > 0}
	t.sc = eventstream.NewScanner(func(ev *eventstream.Event) {
		if ev.ID != "" {
			t.resumable = true
		}
		if !ev.IsMessage() {
			return
		}
		m, ok := wire.Decode(ev.Data)
		if !ok {
			return
		}
		var c *call // the call forwarded with issues that m answers
		switch {
		case h.response(x, m):
			t.answered = true
			c, x.explain = x.explain, nil
		case b != nil:
			c = b.take(m)
		}
		if c == nil {
			return
		}
		t.holding = b != nil && len(b.explain) > 0
		if answer := c.settle(m); answer != nil {
			var buf bytes.Buffer
			_ = eventstream.WriteEvent(&buf, ev.ID, answer) // a bytes.Buffer does not fail
			t.replaced = buf.Bytes()
		}
	})
	return t
}

type sseTap struct {
	body      io.ReadCloser
	x         *exchange
	sc        *eventstream.Scanner
	answered  bool   // the request's response has passed
	resumable bool   // an event had an id
	tail      []byte // the bytes to send once the stream has ended
	end       error  // what Read returns once tail is sent; nil while the stream runs

	// holding: events are held until they end; held is the event being
	// read, out what is ready, replaced the event taking its place.
	holding   bool
	held, out []byte
	replaced  []byte
	buf       []byte
}

func (t *sseTap) Read(p []byte) (int, error) {
	if len(t.out) > 0 {
		n := copy(p, t.out)
		t.out = t.out[n:]
		return n, nil
	}
	if t.end != nil {
		if len(t.tail) == 0 {
			return 0, t.end
		}
		n := copy(p, t.tail)
		t.tail = t.tail[n:]
		return n, nil
	}
	var n int
	var err error
	if t.holding {
		if t.buf == nil {
			t.buf = make([]byte, 32<<10)
		}
		var m int
		m, err = t.body.Read(t.buf)
		t.hold(t.buf[:m])
		n = copy(p, t.out)
		t.out = t.out[n:]
	} else {
		n, err = t.body.Read(p)
		_, _ = t.sc.Write(p[:n])
	}
	if err == nil {
		return n, nil
	}
	t.out = append(t.out, t.held...)
	t.held = nil
	t.end = io.EOF
	if t.x.id != nil && !t.answered && (!errors.Is(err, io.EOF) || !t.resumable) {
		var b bytes.Buffer
		if t.sc.Pending() {
			// What was cut short becomes an event MCP clients ignore.
			b.WriteString("\nevent: selfheal-discarded\n\n")
		}
		_ = eventstream.WriteEvent(&b, "", wire.ErrorResponse(t.x.id, wire.CodeInternalError, "selfheal proxy: the MCP server ended its response before answering"))
		t.tail = b.Bytes()
	} else if !errors.Is(err, io.EOF) {
		t.end = err
	}
	if n == 0 && len(t.out) > 0 {
		n = copy(p, t.out)
		t.out = t.out[n:]
	}
	return n, nil
}

// hold holds each event's bytes until its end, then sends them or their
// replacement to out; after the response the rest goes as it comes.
func (t *sseTap) hold(data []byte) {
	for len(data) > 0 {
		if !t.holding {
			t.out = append(t.out, data...)
			_, _ = t.sc.Write(data)
			return
		}
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			i = len(data) - 1
		}
		line := data[:i+1]
		data = data[i+1:]
		t.held = append(t.held, line...)
		_, _ = t.sc.Write(line)
		switch {
		case t.replaced != nil:
			t.out = append(t.out, t.replaced...)
			t.replaced, t.held = nil, t.held[:0]
		case !t.holding || !t.sc.Pending():
			t.out = append(t.out, t.held...)
			t.held = t.held[:0]
		}
	}
}

func (t *sseTap) Close() error { return t.body.Close() }

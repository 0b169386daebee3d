package eventstream

import (
	"bytes"
	"io"
	"net/http"
	"strings"
)

// Event is one server-sent event: its data (the data fields' lines joined
// by "\n"), its type and its id.
type Event struct {
	Type, ID string
	Data     []byte
}

// IsMessage reports whether ev carries a JSON-RPC message.
func (ev *Event) IsMessage() bool {
	return ev.Type == "" || ev.Type == "message"
}

// Scanner reads server-sent events as their bytes pass by: Write is fed
// chunks, and each complete event is given to the function, in order. It
// keeps only the event being read, and follows the WHATWG event-stream
// rules (any line ending, ":" comments, one space after the colon dropped,
// an event without data not dispatched).
type Scanner struct {
	on func(*Event)

	line    []byte // the line being read, without its end
	afterCR bool   // the last byte was "\r": a "\n" next ends nothing
	ev      Event
	data    bytes.Buffer
	hasData bool
}

// NewScanner returns a Scanner that gives each event to on; the event is
// valid until on returns.
func NewScanner(on func(*Event)) *Scanner {
	return &Scanner{on: on}
}

// Write scans p; it never fails.
func (s *Scanner) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if s.afterCR && p[0] == '\n' {
			p = p[1:]
			s.afterCR = false
			continue
		}
		s.afterCR = false
		i := bytes.IndexAny(p, "\r\n")
		if i < 0 {
			s.line = append(s.line, p...)
			break
		}
		s.line = append(s.line, p[:i]...)
		s.afterCR = p[i] == '\r'
		p = p[i+1:]
		s.field(s.line)
		s.line = s.line[:0]
	}
	return n, nil
}

// field handles one complete line.
func (s *Scanner) field(line []byte) {
	if len(line) == 0 {
		s.dispatch()
		return
	}
	if line[0] == ':' {
		return
	}
	name, value, _ := bytes.Cut(line, []byte(":"))
	value = bytes.TrimPrefix(value, []byte(" "))
	switch string(name) {
	case "data":
		if s.hasData {
			s.data.WriteByte('\n')
		}
		s.data.Write(value)
		s.hasData = true
	case "event":
		s.ev.Type = string(value)
	case "id":
		if bytes.IndexByte(value, 0) < 0 {
			s.ev.ID = string(value)
		}
	}
}

// Pending reports whether an event has been begun and not ended.
func (s *Scanner) Pending() bool {
	return len(s.line) > 0 || s.hasData || s.ev.Type != ""
}

func (s *Scanner) dispatch() {
	if s.hasData {
		ev := s.ev
		ev.Data = s.data.Bytes()
		s.on(&ev)
	}
	s.ev.Type = ""
	s.data.Reset()
	s.hasData = false
	// The id is kept: it is the stream's last event id until another.
}

// WriteEvent writes one event carrying a JSON-RPC message to w: an id if
// id is not "", and one data field per line of the message.
func WriteEvent(w io.Writer, id string, msg []byte) error {
	var b bytes.Buffer
	b.Grow(len(msg) + len(id) + 32)
	b.WriteString("event: message\n")
	if id != "" {
		b.WriteString("id: ")
		b.WriteString(id)
		b.WriteByte('\n')
	}
	msg = bytes.TrimRight(msg, "\r\n")
	for {
		i := bytes.IndexAny(msg, "\r\n")
		if i < 0 {
			break
		}
		b.WriteString("data: ")
		b.Write(msg[:i])
		b.WriteByte('\n')
		j := i + 1
		if msg[i] == '\r' && j < len(msg) && msg[j] == '\n' {
			j++
		}
		msg = msg[j:]
	}
	b.WriteString("data: ")
	b.Write(msg)
	b.WriteString("\n\n")
	_, err := w.Write(b.Bytes())
	return err
}

// SetHeaders sets the headers of an event stream; no-transform and
// X-Accel-Buffering keep proxies (nginx) from buffering the events.
func SetHeaders(h http.Header) {
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache, no-transform")
	h.Set("X-Accel-Buffering", "no")
}

// Accepts reports whether h's Accept header admits the media type want:
// named, or through type/* or */*.
func Accepts(h http.Header, want string) bool {
	typ, _, _ := strings.Cut(want, "/")
	for _, v := range h.Values("Accept") {
		for part := range strings.SplitSeq(v, ",") {
			mt, _, _ := strings.Cut(part, ";")
			mt = strings.TrimSpace(mt)
			if strings.EqualFold(mt, want) || mt == "*/*" || strings.EqualFold(mt, typ+"/*") {
				return true
			}
		}
	}
	return false
}

// StreamOnly reports whether h's Accept admits an event stream and not
// JSON.
func StreamOnly(h http.Header) bool {
	return Accepts(h, "text/event-stream") && !Accepts(h, "application/json")
}

package wire

import (
	"bufio"
	"bytes"
	"io"
)

// ReadSize is the buffer of each direction's reader: a line that fits is
// handled where it was read, without a copy.
const ReadSize = 64 << 10

// keepSize is the largest buffer always kept for the next long line; a
// larger one goes when a line used less than a quarter of it, so that one
// huge message does not pin its memory while a stream of large ones reuses
// one buffer.
const keepSize = 1 << 20

// LineReader reads newline-delimited messages (the stdio framing of MCP)
// of any length.
type LineReader struct {
	r    *bufio.Reader
	buf  []byte // a line longer than r's buffer is gathered here
	last int    // the length of the last line if it was gathered in buf, else 0
}

// NewLineReader returns the reader of r's lines.
func NewLineReader(r io.Reader) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, ReadSize)}
}

// Next returns the next line with its '\n', or the last bytes of the
// stream without one; io.EOF when nothing is left, or the read error. The
// line is valid until the next call.
func (lr *LineReader) Next() ([]byte, error) {
	line, _, err := lr.NextOrHead(nil)
	return line, err
}

// NextOrHead is Next for a reader that streams the lines it need not read:
// a line longer than the buffer is gathered whole only when whole says so
// of its head (nil: always). Else it returns the head with more set, and
// Part the rest: memory stays at the buffer's size.
func (lr *LineReader) NextOrHead(whole func(head []byte) bool) (line []byte, more bool, err error) {
	if cap(lr.buf) > keepSize && lr.last < cap(lr.buf)/4 {
		lr.buf = nil
	}
	lr.last = 0
	line, err = lr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		if whole != nil && !whole(line) {
			return line, true, nil
		}
		lr.buf = append(lr.buf[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = lr.r.ReadSlice('\n')
			lr.buf = append(lr.buf, line...)
		}
		line, lr.last = lr.buf, len(lr.buf)
	}
	if err == io.EOF && len(line) > 0 {
		err = nil // the last line, without its newline; EOF comes next
	}
	if err != nil {
		return nil, false, err
	}
	return line, false, nil
}

// Part returns the next piece of the line NextOrHead left unfinished, valid
// until the next call; more is false for its last piece. At the stream's
// end it returns io.EOF, or the read error.
func (lr *LineReader) Part() (piece []byte, more bool, err error) {
	piece, err = lr.r.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return piece, true, nil
	case err == io.EOF && len(piece) > 0:
		return piece, false, nil
	case err != nil:
		return nil, false, err
	}
	return piece, false, nil
}

// HasLine reports whether the next line is whole in the buffer: reading it
// will not wait for the peer.
func (lr *LineReader) HasLine() bool {
	n := lr.r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := lr.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

package proxy

import (
	"bufio"
	"bytes"
	"io"
	"sync/atomic"
)

// readSize is the buffer of each direction's reader: a line that fits is
// handled where it was read, without a copy.
const readSize = 64 << 10

// keepSize is the largest buffer always kept for the next long line. A
// larger one is kept only while the lines need most of it: it is let go
// before the next line when the last one used less than a quarter of it,
// so that one huge message does not pin its memory for the rest of the
// session, while a stream of large ones reuses one buffer.
const keepSize = 1 << 20

// lineReader reads newline-delimited messages (the stdio framing of MCP)
// of any length.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte // a line longer than r's buffer is gathered here
	last int    // the length of the last line if it was gathered in buf, else 0
}

func newLineReader(r io.Reader) *lineReader {
	return &lineReader{r: bufio.NewReaderSize(r, readSize)}
}

// next returns the next line with its '\n', or the last bytes of the
// stream without one; io.EOF when nothing is left, or the read error. The
// line is valid until the next call.
func (lr *lineReader) next() ([]byte, error) {
	line, _, err := lr.nextOrHead(nil)
	return line, err
}

// nextOrHead is next for a reader that streams the lines it need not read:
// a line longer than the reader's buffer is gathered whole only when
// whole, given the buffer's worth of its first bytes, says it must be (nil:
// always). Else nextOrHead returns those first bytes with more set, and
// part returns the rest, piece by piece: memory stays at the buffer's size
// whatever the line's.
func (lr *lineReader) nextOrHead(whole func(head []byte) bool) (line []byte, more bool, err error) {
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

// part returns the next piece of the line nextOrHead left unfinished, valid
// until the next call; more is false for its last piece, which ends with
// the line's '\n' (or is the stream's last bytes, without one). At the
// stream's end part returns io.EOF, or the read error.
func (lr *lineReader) part() (piece []byte, more bool, err error) {
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

// hasLine reports whether the next line is whole in the reader's buffer:
// reading it will not wait for the peer.
func (lr *lineReader) hasLine() bool {
	n := lr.r.Buffered()
	if n == 0 {
		return false
	}
	b, _ := lr.r.Peek(n)
	return bytes.IndexByte(b, '\n') >= 0
}

// batch gathers the lines written to a peer while the reader of the other
// peer has more whole lines in hand (hold), so that a burst of small
// messages costs one write, as it costs io.Copy, and not one each. Its
// reader flushes it before it reads a line it may wait for: no line waits
// for another that has not arrived. It holds at most readSize bytes; its
// user serializes its calls.
type batch struct {
	hold atomic.Bool // set by the reader: another whole line is in hand
	buf  []byte
}

// write writes line to w, or keeps it while hold is set and it fits.
func (b *batch) write(w io.Writer, line []byte) error {
	fits := len(b.buf)+len(line) <= readSize
	if fits && (b.hold.Load() || len(b.buf) > 0) {
		b.buf = append(b.buf, line...)
		if b.hold.Load() {
			return nil
		}
		return b.flush(w)
	}
	if err := b.flush(w); err != nil {
		return err
	}
	_, err := w.Write(line)
	return err
}

// flush writes what b holds.
func (b *batch) flush(w io.Writer) error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

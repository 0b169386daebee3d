package proxy

import (
	"bufio"
	"io"
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
	if cap(lr.buf) > keepSize && lr.last < cap(lr.buf)/4 {
		lr.buf = nil
	}
	lr.last = 0
	line, err := lr.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
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
		return nil, err
	}
	return line, nil
}

package proxy

import (
	"io"
	"sync/atomic"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// batch gathers the lines written to a peer while the other peer's reader
// has more whole lines in hand (hold), so that a burst of small messages
// costs one write, as with io.Copy. Its reader flushes it before a read
// that may wait, so no line waits for one not arrived. It holds at most
// wire.ReadSize bytes; its user serializes its calls.
type batch struct {
	hold atomic.Bool // set by the reader: another whole line is in hand
	buf  []byte
}

// write writes line to w, or keeps it while hold is set and it fits.
func (b *batch) write(w io.Writer, line []byte) error {
	fits := len(b.buf)+len(line) <= wire.ReadSize
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

func (b *batch) flush(w io.Writer) error {
	if len(b.buf) == 0 {
		return nil
	}
	_, err := w.Write(b.buf)
	b.buf = b.buf[:0]
	return err
}

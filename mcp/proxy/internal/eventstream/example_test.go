package eventstream_test

import (
	"bytes"
	"fmt"

	"github.com/selfheal/selfheal/mcp/proxy/internal/eventstream"
)

// A message written as an event, with its id, is read back whole, however
// the stream's bytes are cut.
func Example() {
	var stream bytes.Buffer
	_ = eventstream.WriteEvent(&stream, "1-1", []byte(`{"jsonrpc":"2.0","id":1,"result":{}}`+"\n"))
	sc := eventstream.NewScanner(func(ev *eventstream.Event) {
		fmt.Printf("message=%v id=%s data=%s\n", ev.IsMessage(), ev.ID, ev.Data)
	})
	b := stream.Bytes()
	sc.Write(b[:10])
	sc.Write(b[10:])
	// Output:
	// message=true id=1-1 data={"jsonrpc":"2.0","id":1,"result":{}}
}

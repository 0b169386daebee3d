package relay_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/selfheal/selfheal/mcp/guard"
	"github.com/selfheal/selfheal/mcp/proxy/internal/relay"
)

// A Relay's Serve relays one session between its client and its server;
// here a stand-in that copies the client's bytes to the server.
func Example() {
	r := &relay.Relay{Serve: func(_ context.Context, client io.Reader, _ io.Writer, _ io.Reader, toServer io.Writer, _ guard.Limiter, _ string) error {
		_, err := io.Copy(toServer, client)
		return err
	}}
	var server strings.Builder
	err := r.Serve(context.Background(), strings.NewReader(`{"jsonrpc":"2.0","method":"ping"}`+"\n"), io.Discard, strings.NewReader(""), &server, nil, "")
	fmt.Print(server.String(), err, " ", strings.HasPrefix(relay.OwnPrefix+"x", relay.OwnPrefix))
	// Output:
	// {"jsonrpc":"2.0","method":"ping"}
	// <nil> true
}

package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"os"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

func main() {
	locale := flag.String("locale", "en", "language of validation errors when the client declares none (en, ja)")
	lockfile := flag.String("lockfile", os.Getenv("SELFHEAL_LOCKFILE"), "known-good lockfile of the tools, for contract awareness (default $SELFHEAL_LOCKFILE)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// The engine words every validation error: its locale is the server's
	// language when the client declares none.
	engine := selfheal.New(selfheal.WithLocale(*locale))
	opts := []gosdk.Option{gosdk.WithEngine(engine)}
	if *lockfile != "" {
		lock, err := contract.ReadFile(*lockfile)
		if err != nil {
			log.Fatal(err)
		}
		opts = append(opts, gosdk.WithContract(lock))
	}
	s := NewServer(NewStore(), DefaultLimits, logger, opts...)
	// Not mcp.StdioTransport: go-sdk ends the session on a message nested
	// deeper than 1000 levels, so such messages are answered before it
	// sees them (see stdioTransport).
	t := stdioTransport(os.Stdin, os.Stdout, engine, logger)
	if err := s.Run(context.Background(), t); err != nil {
		// go-sdk ends the session on a message it cannot read (malformed
		// JSON, a line over its length limit) or a closed pipe; say so
		// plainly rather than with log.Fatal's bare error.
		logger.Error("the MCP session ended with an error; the server exits", "error", err)
		os.Exit(1)
	}
	logger.Info("the client closed the connection; the server exits")
}

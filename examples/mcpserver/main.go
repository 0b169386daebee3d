package main

import (
	"context"
	"flag"
	"log"
	"log/slog"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

func main() {
	locale := flag.String("locale", "en", "language of validation errors when the client declares none (en, ja)")
	lockfile := flag.String("lockfile", os.Getenv("SELFHEAL_LOCKFILE"), "known-good lockfile of the tools, for contract awareness (default $SELFHEAL_LOCKFILE)")
	flag.Parse()
	logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
	opts := []gosdk.Option{gosdk.WithLocale(*locale)}
	if *lockfile != "" {
		lock, err := contract.ReadFile(*lockfile)
		if err != nil {
			log.Fatal(err)
		}
		opts = append(opts, gosdk.WithContract(lock))
	}
	s := NewServer(NewStore(), DefaultLimits, logger, opts...)
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}

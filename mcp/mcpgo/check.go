package mcpgo

import (
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"

	"github.com/mark3labs/mcp-go/server"
)

// errInputSchemaValidation is what Check returns when s was created with
// server.WithInputSchemaValidation. mcp-go runs that validation before any
// handler or middleware and answers a failure with its own one-line text,
// so selfheal never sees the invalid arguments. Remove the option: AddTool
// and Middleware validate against the same schemas.
var errInputSchemaValidation = errors.New("mcp-go's WithInputSchemaValidation is on: it answers invalid arguments before selfheal can; remove the option, selfheal validates the same schemas")

// Check reports what would stop selfheal from answering s's tool calls, at
// startup rather than in front of a model: an error saying to remove
// server.WithInputSchemaValidation when s was created with it (mcp-go then
// answers invalid arguments itself, with a Go struct dump, before any
// handler or middleware runs), and every registered tool whose input schema
// does not compile with the given options (the options of AddTool or
// Middleware; only WithSchemaOptions matters here):
//
//	if err := mcpgo.Check(s); err != nil {
//		log.Fatal(err)
//	}
//
// mcp-go does not export whether input validation is on. Check reads the
// server's unexported inputValidator field by reflection (reading, never
// writing, and without package unsafe); in an mcp-go version without that
// field it cannot tell, and reports nothing for it.
func Check(s *server.MCPServer, opts ...Option) error {
	errs := []error{checkValidation(s)}
	c := config(opts)
	tools := s.ListTools()
	for _, name := range slices.Sorted(maps.Keys(tools)) {
		if _, err := compile(tools[name].Tool, c); err != nil {
			errs = append(errs, fmt.Errorf("tool %q: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// inputSchemaValidation reports whether s was created with
// server.WithInputSchemaValidation, and whether it could tell (see Check).
func inputSchemaValidation(s *server.MCPServer) (on, known bool) {
	if s == nil {
		return false, true
	}
	f := reflect.ValueOf(s).Elem().FieldByName("inputValidator")
	if !f.IsValid() || f.Kind() != reflect.Pointer {
		return false, false
	}
	return !f.IsNil(), true
}

func checkValidation(s *server.MCPServer) error {
	if on, _ := inputSchemaValidation(s); on {
		return errInputSchemaValidation
	}
	return nil
}

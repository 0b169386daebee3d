package mcpgo

import (
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// InputSchemaValidation is inputSchemaValidation, for the tests of package
// mcpgo_test.
var InputSchemaValidation = inputSchemaValidation

// ErrInputSchemaValidation is errInputSchemaValidation, for the tests of
// package mcpgo_test.
var ErrInputSchemaValidation = errInputSchemaValidation

// HasNumber is hasNumber, for the tests of package mcpgo_test.
var HasNumber = hasNumber

// CallOptionOf makes a CallOption of f, for tests that set the retry
// policy's clock.
func CallOptionOf(f func(*clientcall.Config)) CallOption { return CallOption{f} }

// OptionOf makes an Option of f, for tests that give the tools a tracker
// with a test clock.
func OptionOf(f func(*toolcall.Config)) Option { return Option{f} }

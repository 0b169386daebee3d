package gosdk

import (
	"github.com/selfheal/selfheal/mcp/internal/clientcall"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// ClientLocale is clientLocale, for the tests of package gosdk_test.
var ClientLocale = clientLocale

// CallOptionOf makes a CallOption of f, for tests that set the retry
// policy's clock.
func CallOptionOf(f func(*clientcall.Config)) CallOption { return CallOption{f} }

// OptionOf makes an Option of f, for tests that give the tools a tracker
// with a test clock.
func OptionOf(f func(*toolcall.Config)) Option { return Option{f} }

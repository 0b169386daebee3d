// Package facade gives the module's own packages what package selfheal
// keeps out of its API: the formatter an Engine words with, whose Bounded
// gives the structured issues the MCP integrations send beside the text.
// A user reaches the formatter only through the Engine's methods.
package facade

import "github.com/selfheal/selfheal/internal/formatter"

// Formatter returns the formatter of e, a *selfheal.Engine (nil for
// anything else). Package selfheal sets it when it is initialized; the
// parameter is untyped because this package cannot import selfheal,
// which imports it.
var Formatter func(e any) *formatter.Formatter

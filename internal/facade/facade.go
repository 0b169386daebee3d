package facade

import "github.com/selfheal/selfheal/internal/formatter"

// Formatter returns the formatter of e, a *selfheal.Engine (nil for
// anything else). Package selfheal sets it when it is initialized; the
// parameter is untyped because this package cannot import selfheal,
// which imports it.
var Formatter func(e any) *formatter.Formatter

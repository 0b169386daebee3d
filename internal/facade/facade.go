package facade

import (
	"github.com/selfheal/selfheal/internal/formatter"
	"github.com/selfheal/selfheal/internal/issuesx"
)

// Formatter returns the formatter of e, a *selfheal.Engine (nil for
// anything else). Package selfheal sets it when it is initialized; the
// parameter is untyped because this package cannot import selfheal,
// which imports it.
var Formatter func(e any) *formatter.Formatter

// FormatAt returns e.Format(action, list), e a *selfheal.Engine and list
// an issues.List, worded through sites, the sites of its issues by index
// (see issuesx.Site), as the MCP integrations validate (see
// schemaconv.ValidateAt). Package selfheal sets it.
var FormatAt func(e any, action string, list error, sites []*issuesx.Site) string

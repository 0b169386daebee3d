package mcpgo

import (
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// engineFor returns the engine in the language the client declared.
func engineFor(c *toolcall.Config, req mcp.CallToolRequest) *selfheal.Engine {
	return c.EngineFor(clientLocale(req))
}

// clientLocale returns the language the client declared for a call, or ""
// when it declared none: the "selfheal/locale" entry of the call's _meta, else the
// Accept-Language header of the HTTP request that carried the call.
func clientLocale(req mcp.CallToolRequest) string {
	if m := req.Params.Meta; m != nil {
		if s := toolcall.MetaLocaleOf(m.AdditionalFields); s != "" {
			return s
		}
	}
	return toolcall.AcceptLanguage(req.Header)
}

package gosdk

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// engineFor returns the engine in the language the client declared.
func engineFor(c *toolcall.Config, req *mcp.CallToolRequest) *selfheal.Engine {
	return c.EngineFor(clientLocale(req))
}

// clientLocale returns the language the client declared for a call, or ""
// when it declared none: the "selfheal/locale" entry of the call's _meta, else that
// of the initialize request's _meta, else the Accept-Language header of the
// HTTP request that carried the call.
func clientLocale(req *mcp.CallToolRequest) string {
	if req == nil {
		return ""
	}
	if req.Params != nil {
		if s := toolcall.MetaLocaleOf(req.Params.Meta); s != "" {
			return s
		}
	}
	if req.Session != nil {
		if p := req.Session.InitializeParams(); p != nil {
			if s := toolcall.MetaLocaleOf(p.Meta); s != "" {
				return s
			}
		}
	}
	if req.Extra != nil {
		return toolcall.AcceptLanguage(req.Extra.Header)
	}
	return ""
}

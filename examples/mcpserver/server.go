package main

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/mcp/gosdk"
	"github.com/selfheal/selfheal/mcp/guard"
)

// The input schemas: what the model is told and what arguments are checked
// against. Formats, enums, bounds, patterns, a union, nested objects and
// arrays, so that every kind of mistake has a place to happen.
const (
	getInvoiceSchema = `{
  "type": "object",
  "properties": {
    "id": {"type": "string", "pattern": "^inv_[0-9]{4}_[0-9]{4}$", "description": "The invoice ID, e.g. inv_2026_0001"}
  },
  "required": ["id"],
  "additionalProperties": false
}`

	listInvoicesSchema = `{
  "type": "object",
  "properties": {
    "customer_id": {"type": "string", "pattern": "^cus_[A-Za-z0-9]{8}$", "description": "The customer's ID, e.g. cus_Ab12Cd34"},
    "status": {"enum": ["draft", "open", "paid", "void"]},
    "created_after": {"type": "string", "format": "date", "description": "Only invoices created after this date (YYYY-MM-DD)"},
    "amount_min": {"type": "number", "minimum": 0, "multipleOf": 0.01},
    "limit": {"type": "integer", "minimum": 1, "maximum": 100},
    "page_size": {"type": "integer", "minimum": 1, "maximum": 100, "deprecated": true, "description": "Deprecated: use limit"},
    "payment": {
      "description": "Only invoices paid this way",
      "oneOf": [
        {"type": "object", "properties": {"type": {"const": "card"}, "last4": {"type": "string", "pattern": "^[0-9]{4}$"}}, "required": ["type", "last4"], "additionalProperties": false},
        {"type": "object", "properties": {"type": {"const": "bank"}, "iban": {"type": "string", "minLength": 15, "maxLength": 34}}, "required": ["type", "iban"], "additionalProperties": false}
      ]
    }
  },
  "required": ["customer_id"],
  "additionalProperties": false
}`

	exportInvoicesSchema = `{
  "type": "object",
  "properties": {
    "customer_id": {"type": "string", "pattern": "^cus_[A-Za-z0-9]{8}$"}
  },
  "required": ["customer_id"],
  "additionalProperties": false
}`

	createUserSchema = `{
  "type": "object",
  "properties": {
    "name": {"type": "string", "minLength": 2, "maxLength": 80},
    "email": {"type": "string", "format": "email"},
    "age": {"type": "integer", "minimum": 13, "maximum": 130},
    "role": {"enum": ["admin", "member", "viewer"]},
    "tags": {"type": "array", "items": {"type": "string", "minLength": 1}, "maxItems": 5, "uniqueItems": true},
    "address": {
      "type": "object",
      "properties": {
        "city": {"type": "string"},
        "postcode": {"type": "string", "pattern": "^[0-9]{5}$"}
      },
      "required": ["city"],
      "additionalProperties": false
    },
    "metadata": {
      "type": "object",
      "propertyNames": {"pattern": "^[a-z][a-z0-9_]*$"},
      "additionalProperties": {"type": "string", "maxLength": 100}
    }
  },
  "required": ["name", "email", "role"],
  "additionalProperties": false
}`
)

// Limits are the guards of the example's tools.
type Limits struct {
	// GetInvoice rate-limits billing.get_invoice.
	GetInvoice guard.Limits
	// Export bounds billing.export_invoices: one export at a time.
	Export guard.Limits
}

// DefaultLimits: billing.get_invoice at 5 calls a second (bursts of 10),
// one billing.export_invoices at a time and none waiting.
var DefaultLimits = Limits{
	GetInvoice: guard.Limits{Rate: 5, Burst: 10},
	Export:     guard.Limits{MaxActive: 1, MaxQueued: guard.NoQueue},
}

// GetInvoiceArgs are the arguments of billing.get_invoice.
type GetInvoiceArgs struct {
	ID string `json:"id"`
}

// ExportArgs are the arguments of billing.export_invoices.
type ExportArgs struct {
	CustomerID string `json:"customer_id"`
}

// ExportResult is the output of billing.export_invoices.
type ExportResult struct {
	Exported int `json:"exported"`
}

// NewServer returns the example MCP server over store. Each tool is
// registered with gosdk.AddTool, the one line that differs from go-sdk's
// mcp.AddTool; opts apply to every tool (WithEngine, WithContract …).
func NewServer(store *Store, limits Limits, logger *slog.Logger, opts ...gosdk.Option) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "selfheal-example", Version: "1.0.0"}, &mcp.ServerOptions{Logger: logger})
	opts = append([]gosdk.Option{gosdk.WithLogger(logger)}, opts...)
	with := func(more ...gosdk.Option) []gosdk.Option { return append(append([]gosdk.Option{}, opts...), more...) }

	gosdk.AddTool(s, &mcp.Tool{
		Name:        "billing.get_invoice",
		Description: "Get one invoice by its ID.",
		InputSchema: json.RawMessage(getInvoiceSchema),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in GetInvoiceArgs) (*mcp.CallToolResult, Invoice, error) {
		inv, err := store.GetInvoice(ctx, in.ID)
		return nil, inv, err
	}, with(gosdk.WithGuard(guard.New(limits.GetInvoice)))...)

	gosdk.AddTool(s, &mcp.Tool{
		Name:        "billing.list_invoices",
		Description: "List a customer's invoices, newest filters first; at most 3 per call.",
		InputSchema: json.RawMessage(listInvoicesSchema),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, q ListQuery) (*mcp.CallToolResult, InvoiceList, error) {
		list, warning := store.ListInvoices(ctx, q)
		if warning != nil {
			return nil, list, warning // a success carrying a warning
		}
		return nil, list, nil
	}, opts...)

	gosdk.AddTool(s, &mcp.Tool{
		Name:        "billing.export_invoices",
		Description: "Export all invoices of a customer. Slow; one export runs at a time.",
		InputSchema: json.RawMessage(exportInvoicesSchema),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in ExportArgs) (*mcp.CallToolResult, ExportResult, error) {
		n, err := store.ExportInvoices(ctx, in.CustomerID)
		return nil, ExportResult{Exported: n}, err
	}, with(gosdk.WithGuard(guard.New(limits.Export)))...)

	gosdk.AddTool(s, &mcp.Tool{
		Name:        "users.create",
		Description: "Create a user.",
		InputSchema: json.RawMessage(createUserSchema),
	}, func(ctx context.Context, _ *mcp.CallToolRequest, in NewUser) (*mcp.CallToolResult, User, error) {
		u, err := store.CreateUser(ctx, in)
		return nil, u, err
	}, opts...)
	return s
}

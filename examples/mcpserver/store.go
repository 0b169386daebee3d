package main

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/selfheal/selfheal/envelope"
)

// This file is the business logic of the example server: plain Go, no MCP.
// Its functions return an envelope (*envelope.Builder) for failures the model
// can act on and plain errors for everything else.

// Invoice is one invoice of the billing store.
type Invoice struct {
	ID         string `json:"id" jsonschema:"the invoice ID, e.g. inv_2026_0001"`
	CustomerID string `json:"customer_id" jsonschema:"the customer's ID"`
	Status     string `json:"status" jsonschema:"draft, open, paid or void"`
	AmountDue  string `json:"amount_due" jsonschema:"the amount due, a decimal string"`
	Currency   string `json:"currency" jsonschema:"ISO 4217 code"`
	Created    string `json:"created" jsonschema:"the creation date, YYYY-MM-DD"`
}

// InvoiceList is a page of invoices.
type InvoiceList struct {
	Invoices []Invoice `json:"invoices"`
	// Truncated reports that more invoices matched than were returned.
	Truncated bool `json:"truncated"`
}

// User is a created user.
type User struct {
	ID    string   `json:"id"`
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Role  string   `json:"role"`
	Tags  []string `json:"tags"`
}

// ListQuery is a filter of billing.list_invoices (its arguments).
type ListQuery struct {
	CustomerID   string   `json:"customer_id"`
	Status       string   `json:"status,omitempty"`
	CreatedAfter string   `json:"created_after,omitempty"`
	AmountMin    *float64 `json:"amount_min,omitempty"`
	Limit        int      `json:"limit,omitempty"`
	// PageSize is the deprecated name of Limit.
	PageSize int `json:"page_size,omitempty"`
	// Payment keeps only invoices paid this way.
	Payment *Payment `json:"payment,omitempty"`
}

// Payment is a payment method: a card (Last4) or a bank account (IBAN).
type Payment struct {
	Type  string `json:"type"`
	Last4 string `json:"last4,omitempty"`
	IBAN  string `json:"iban,omitempty"`
}

// NewUser is the input of users.create.
type NewUser struct {
	Name    string   `json:"name"`
	Email   string   `json:"email"`
	Age     int      `json:"age,omitempty"`
	Role    string   `json:"role"`
	Tags    []string `json:"tags,omitempty"`
	Address *Address `json:"address,omitempty"`
}

// Address is a user's postal address.
type Address struct {
	City     string `json:"city"`
	Postcode string `json:"postcode,omitempty"`
}

// errStorage is what the store's database layer fails with for a damaged
// record; its text holds what a model must never see (a connection string
// with a password and a file path), which is why the server logs it and the
// model reads a generic INTERNAL_ERROR.
var errStorage = errors.New("read postgres://billing:s3cret-pw@db.internal:5432/billing: page checksum mismatch in /var/lib/postgresql/16/main/base/16384/2619")

// Store is the billing and user store: in memory, safe for concurrent use.
type Store struct {
	mu       sync.Mutex
	invoices []Invoice
	damaged  map[string]bool
	users    []User
	// exportDelay is how long an export takes.
	exportDelay time.Duration
	// exportStarted, when set, is signalled when an export starts (tests).
	exportStarted chan<- struct{}
}

// NewStore returns a store holding a few invoices of customer cus_Ab12Cd34;
// invoice inv_2026_0013 is damaged and cannot be read.
func NewStore() *Store {
	s := &Store{damaged: map[string]bool{"inv_2026_0013": true}, exportDelay: 2 * time.Second}
	for i, st := range []string{"paid", "open", "open", "draft", "void", "paid"} {
		s.invoices = append(s.invoices, Invoice{
			ID:         fmt.Sprintf("inv_2026_%04d", i+1),
			CustomerID: "cus_Ab12Cd34",
			Status:     st,
			AmountDue:  fmt.Sprintf("%d.50", 100*(i+1)),
			Currency:   "EUR",
			Created:    fmt.Sprintf("2026-0%d-15", i+1),
		})
	}
	s.invoices = append(s.invoices, Invoice{ID: "inv_2026_0013", CustomerID: "cus_Zz99Yy88", Status: "open", AmountDue: "13.00", Currency: "EUR", Created: "2026-03-01"})
	return s
}

// GetInvoice returns the invoice with that ID: NOT_FOUND, pointing to
// billing.list_invoices, when there is none.
func (s *Store) GetInvoice(_ context.Context, id string) (Invoice, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.damaged[id] {
		return Invoice{}, fmt.Errorf("billing: load invoice %s: %w", id, errStorage)
	}
	for _, inv := range s.invoices {
		if inv.ID == id {
			return inv, nil
		}
	}
	return Invoice{}, envelope.Error(envelope.NotFound, "No invoice with that ID").
		Suggest("List invoices first, then retry with a real ID").
		Actions("billing.list_invoices").
		Detail("requestedId", id)
}

// maxPage is the most invoices one list call returns.
const maxPage = 3

// ListInvoices returns the customer's invoices matching q, at most q.Limit
// (and never more than maxPage). A query with the deprecated page_size gets
// its invoices and a DEPRECATED warning.
func (s *Store) ListInvoices(_ context.Context, q ListQuery) (InvoiceList, *envelope.Builder) {
	limit := q.Limit
	var warning *envelope.Builder
	if q.PageSize > 0 {
		warning = envelope.Error(envelope.Deprecated, "page_size is deprecated and will be removed; it was applied as limit").
			Suggest("Send limit instead of page_size next time").Warning()
		if limit == 0 {
			limit = q.PageSize
		}
	}
	if limit == 0 || limit > maxPage {
		limit = maxPage
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := InvoiceList{Invoices: []Invoice{}}
	for _, inv := range s.invoices {
		if inv.CustomerID != q.CustomerID || (q.Status != "" && inv.Status != q.Status) ||
			(q.CreatedAfter != "" && inv.Created <= q.CreatedAfter) ||
			(q.Payment != nil && inv.Status != "paid") {
			continue
		}
		if len(out.Invoices) == limit {
			out.Truncated = true
			break
		}
		out.Invoices = append(out.Invoices, inv)
	}
	return out, warning
}

// ExportInvoices exports every invoice of a customer (slowly: it holds the
// only export slot while it runs) and returns how many it wrote.
func (s *Store) ExportInvoices(ctx context.Context, customerID string) (int, error) {
	if s.exportStarted != nil {
		s.exportStarted <- struct{}{}
	}
	select {
	case <-time.After(s.exportDelay):
	case <-ctx.Done():
		return 0, ctx.Err()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, inv := range s.invoices {
		if inv.CustomerID == customerID {
			n++
		}
	}
	return n, nil
}

// CreateUser creates a user: CONFLICT when the email is taken.
func (s *Store) CreateUser(_ context.Context, u NewUser) (User, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	email := strings.ToLower(u.Email)
	if slices.ContainsFunc(s.users, func(x User) bool { return x.Email == email }) {
		return User{}, envelope.Error(envelope.Conflict, "A user with that email already exists").
			Suggest("Use another email, or look the existing user up instead of creating it")
	}
	tags := u.Tags
	if tags == nil {
		tags = []string{}
	}
	user := User{ID: fmt.Sprintf("usr_%04d", len(s.users)+1), Name: u.Name, Email: email, Role: u.Role, Tags: tags}
	s.users = append(s.users, user)
	return user, nil
}

package main

import (
	"fmt"
	"time"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
)

// CreateUser is the arguments of a users.create tool.
type CreateUser struct {
	Name  string   `json:"name"`
	Email string   `json:"email"`
	Age   int      `json:"age"`
	Tags  []string `json:"tags"`
	Team  struct {
		ID   string `json:"id"`
		Role string `json:"role"`
	} `json:"team"`
}

func main() {
	engine := selfheal.New()

	// What a model sent: a quoted number, a misspelled key, an object
	// where an array belongs, a nested type error.
	args := []byte(`{"name": "Ada", "emial": "ada@example.com", "age": "36", "tags": {"a": 1}, "team": {"id": 7}}`)
	var in CreateUser
	if err := jsondecode.Decode(args, &in); err != nil {
		fmt.Println(engine.Format("users.create", err))
		fmt.Println()
	}

	// The same engine in Japanese, for a client that asked for it.
	fmt.Println(engine.Locale("ja-JP").Format("users.create", issues.List{
		{Code: issues.TooSmall, Path: issues.Path{"name"}, Input: "Al", Origin: issues.OriginString, Minimum: "3", Inclusive: true},
	}))
	fmt.Println()

	// The two envelopes of the wire contract, byte for byte as in the seed.
	fmt.Println(envelope.Error(envelope.NotFound, "No invoice with that ID").
		Suggest("List invoices first, then retry with a real ID").
		Actions("billing.list_invoices").
		Detail("requestedId", "inv_2026_9999").
		RetryAfter(30 * time.Second).String())
	fmt.Println()
	fmt.Println(selfheal.New(selfheal.WithExamples(false)).Format("billing.get_invoice", issues.List{
		{Code: issues.InvalidFormat, Path: issues.Path{"id"}, Input: "not-an-email", Format: "email"},
	}))
}

package jsondecode_test

import (
	"encoding/json"
	"fmt"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/issues"
)

type Item struct {
	SKU string `json:"sku"`
	Qty int8   `json:"qty"`
}

type Order struct {
	Customer string          `json:"customer"`
	Items    []Item          `json:"items"`
	Labels   map[string]bool `json:"labels,omitempty"`
}

// show marshals a sent value, so that a number and a string differ.
func show(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func printIssues(err error) {
	list, ok := err.(issues.List)
	if !ok {
		fmt.Println("not issues:", err)
		return
	}
	for _, is := range list {
		fmt.Printf("%s: %s", is.Path, is.Code)
		switch is.Code {
		case issues.InvalidType:
			fmt.Printf(", sent %s, expected %s", show(is.Input), is.Expected)
		case issues.TooBig:
			fmt.Printf(", sent %s, maximum %s", show(is.Input), is.Maximum)
		case issues.UnrecognizedKeys:
			fmt.Printf(" %q, allowed %q", is.Keys, is.Allowed)
		case issues.Custom:
			fmt.Printf(", %s, sent %s", is.Message, show(is.Input))
		}
		fmt.Println()
	}
}

// Every problem in the document is reported, in document order, with the
// value that was sent.
func ExampleDecode() {
	var o Order
	err := jsondecode.Decode([]byte(`{
		"customer": 42,
		"items": [{"sku": "A1", "qty": 500}, {"sku": "B2", "qtty": 1}],
		"labels": {"rush.order": "yes"}
	}`), &o)
	printIssues(err)

	// Malformed JSON is one issue saying where, with the bytes around it.
	printIssues(jsondecode.Decode([]byte(`{"customer": "Ann", "items": [}`), &o))
	// Output:
	// customer: invalid_type, sent 42, expected string
	// items[0].qty: too_big, sent 500, maximum 127
	// items[1]: unrecognized_keys ["qtty"], allowed ["sku" "qty"]
	// labels["rush.order"]: invalid_type, sent "yes", expected boolean
	// (root): custom, Malformed JSON at byte offset 30, sent ": \"Ann\", \"items\": [}"
}

// An error from encoding/json says less than Decode sees: the value of a
// wrong type is only described, so Input stays nil and Origin names the
// kind that was sent.
func ExampleIssues() {
	var o Order
	err := json.Unmarshal([]byte(`{"customer":["Ann"]}`), &o)
	list, ok := jsondecode.Issues(err)
	// A bare error names the kind of value sent, not the value.
	fmt.Println(ok, list[0].Path, list[0].Code, "expected", list[0].Expected, "sent", list[0].Input.(issues.Unknown).Type)
	fmt.Println(selfheal.New(selfheal.WithAdapters(jsondecode.Errors)).Format("orders.create", err))
	// Output:
	// true customer invalid_type expected string sent array
	// <validation_error action="orders.create">
	//   <field name="customer">You sent: an array. Expected a string.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

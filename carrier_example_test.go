package selfheal_test

import (
	"fmt"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/issues"
)

// outOfStock is a user's own error type: its Issues method makes it an
// issues.Carrier, which the engine finds anywhere in an error's chain.
type outOfStock struct{ sku string }

func (e outOfStock) Error() string { return "out of stock: " + e.sku }

func (e outOfStock) Issues() issues.List {
	return issues.List{{Code: issues.Custom, Path: issues.Path{"sku"}, Input: e.sku, Message: "This item is out of stock"}}
}

func ExampleEngine_Issues() {
	engine := selfheal.New()
	err := fmt.Errorf("orders.create: %w", outOfStock{sku: "A-42"})
	fmt.Println(engine.Format("orders.create", err))
	// Output:
	// <validation_error action="orders.create">
	//   <field name="sku">This item is out of stock. You sent: 'A-42'.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

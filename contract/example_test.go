package contract_test

import (
	"encoding/json"
	"fmt"

	"github.com/selfheal/selfheal/contract"
)

func Example() {
	// Yesterday's contract, as the lockfile stored it, and today's tools as
	// the server lists them.
	old, _ := contract.NewTool("billing.pay", "Pay an invoice.",
		json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":0},"memo":{"type":"string"}},"required":["amount"]}`), nil)
	now, _ := contract.NewTool("billing.pay", "Pay an invoice.",
		json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":1},"currency":{"enum":["EUR","USD"],"default":"EUR"}},"required":["amount"]}`), nil)
	before, _ := contract.NewLock([]contract.Tool{old})
	after, _ := contract.NewLock([]contract.Tool{now})

	changes := contract.Diff(before, after)
	for _, c := range changes {
		fmt.Println(c)
	}
	fmt.Println("fail the build:", contract.Worst(changes) == contract.Breaking)

	// What a validation error of billing.pay tells the model, at most 1.
	shown, more := contract.ForTool(changes, "billing.pay", 1)
	fmt.Printf("%s %s before=%s after=%s (+%d more)\n", shown[0].Severity, shown[0].Field, shown[0].Before, shown[0].After, more)
	// Output:
	// BREAKING billing.pay amount: Minimum raised from 0 to 1
	// BREAKING billing.pay memo: Property removed
	// SAFE billing.pay currency: New optional property
	// fail the build: true
	// BREAKING amount before=0 after=1 (+1 more)
}

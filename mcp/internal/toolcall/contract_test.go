package toolcall

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
)

func TestToolContract(t *testing.T) {
	old, err := contract.NewTool("pay", "", json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":0},"note":{"type":"string"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := contract.NewLock([]contract.Tool{old})
	if err != nil {
		t.Fatal(err)
	}
	live := json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":1},"note":{"type":"string","default":"-"},"tip":{"type":"integer"}}}`)
	for _, tc := range []struct {
		name string
		set  func(*Config)
		tool string
		want *envelope.Contract
	}{
		{"no lock", func(*Config) {}, "pay", nil},
		{"default limit", func(c *Config) { c.SetLock(lock) }, "pay", &envelope.Contract{Changes: []envelope.ContractChange{
			{Severity: "BREAKING", Field: "amount", Description: "Minimum raised from 0 to 1", Before: "0", After: "1"},
			{Severity: "RISKY", Field: "note", Description: `Default "-" added`, After: `"-"`},
		}}},
		{"limit 1", func(c *Config) { c.SetLock(lock); c.SetContractLimit(1) }, "pay", &envelope.Contract{Changes: []envelope.ContractChange{
			{Severity: "BREAKING", Field: "amount", Description: "Minimum raised from 0 to 1", Before: "0", After: "1"},
		}, More: 1}},
		{"another tool", func(c *Config) { c.SetLock(lock) }, "pay2", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			tc.set(&c)
			got, err := c.ToolContract(c.Lock(), tc.tool, "", live, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

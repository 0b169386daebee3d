package toolcall

import (
	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
)

// DefaultContractLimit is how many changes a contract_awareness section
// lists when no limit is set.
const DefaultContractLimit = 5

// contractConfig is the contract awareness part of Config.
type contractConfig struct {
	lock     *contract.Lock // nil: no contract awareness
	limit    int
	limitSet bool
}

// SetLock makes validation errors contract-aware against l (nil: not).
func (c *Config) SetLock(l *contract.Lock) {
	c.contract.lock = l
}

// SetContractLimit caps the changes of a contract_awareness section; n <= 0
// lists them all.
func (c *Config) SetContractLimit(n int) {
	c.contract.limit, c.contract.limitSet = n, true
}

// ContractLimit returns the cap on the changes of a contract_awareness
// section: DefaultContractLimit unless set; 0 or less for no cap.
func (c *Config) ContractLimit() int {
	if !c.contract.limitSet {
		return DefaultContractLimit
	}
	return c.contract.limit
}

// Lock returns the lock validation errors are aware of, nil when none was
// set.
func (c *Config) Lock() *contract.Lock { return c.contract.lock }

// ToolContract returns the contract_awareness section of the tool's
// validation errors: the BREAKING and RISKY changes from the lock's entry
// of exactly this name to the live tool (its name, description and schemas
// as tools/list shows them; see contract.NewTool), at most
// c.ContractLimit() of them and the number left out. It is nil when lock is
// nil, when the lock has no tool of this name, and when no such change
// exists. Call it once per tool, at registration: it normalizes and
// compares the schemas.
func (c *Config) ToolContract(lock *contract.Lock, name, description string, inputSchema, outputSchema any) (*envelope.Contract, error) {
	old := lock.Tool(name)
	if old == nil {
		return nil, nil
	}
	live, err := contract.NewTool(name, description, inputSchema, outputSchema)
	if err != nil {
		return nil, err
	}
	changes := contract.Diff(&contract.Lock{Version: lock.Version, Tools: []contract.Tool{*old}},
		&contract.Lock{Version: lock.Version, Tools: []contract.Tool{live}})
	kept, more := contract.ForTool(changes, name, c.ContractLimit())
	if len(kept) == 0 && more == 0 {
		return nil, nil
	}
	ct := &envelope.Contract{Changes: make([]envelope.ContractChange, len(kept)), More: more}
	for i, ch := range kept {
		ct.Changes[i] = envelope.ContractChange{
			Severity: ch.Severity.String(), Field: ch.Field, Description: ch.Description,
			Before: ch.Before, After: ch.After,
		}
	}
	return ct, nil
}

// Package contract snapshots an MCP server's tool contracts into a lockfile
// and says, change by change, what moved between two snapshots and how much
// it matters to a client — a model trained on the old contract, or a
// program calling the tools.
//
// [NewTool] normalizes one tool and [NewLock] gathers tools into a [Lock],
// the content of a lockfile; [Lock.Marshal] writes it and [ReadFile] reads
// it back. [Diff] compares two locks and classifies each [Change] as
// BREAKING, RISKY, SAFE or COSMETIC by what it does to a client of the old
// contract:
//
//	old, err := contract.ReadFile("selfheal.lock")
//	if err != nil {
//		return err
//	}
//	changes := contract.Diff(old, now) // now: a Lock of the tools listed today
//	if contract.Worst(changes) == contract.Breaking {
//		return fmt.Errorf("breaking contract change: %v", changes[0])
//	}
//
// Diff's documentation lists the rules. [ForTool] picks the changes a
// validation_error's contract_awareness section shows for one failed call.
package contract

// Package contract snapshots an MCP server's tool contracts into a lockfile
// and says, change by change, what moved between two snapshots and how much
// it matters to a client — a model trained on the old contract, or a
// program calling the tools.
//
// # Snapshots and the lockfile
//
// [NewTool] normalizes one tool (name, description, input schema and output
// schema) and digests it; [NewLock] sorts tools into a [Lock]. A lockfile,
// selfheal.lock by convention, is the JSON of a Lock:
//
//	{
//	  "version": 1,
//	  "tools": [
//	    {
//	      "name": "billing.pay",
//	      "digest": "sha256:…",
//	      "description": "Pay an invoice.",
//	      "inputSchema": { … },
//	      "outputSchema": { … }
//	    }
//	  ]
//	}
//
// It stores every tool's full normalized contract, not a summary, so that a
// later diff is field by field. The text is deterministic — tools sorted by
// name, the fields of a tool in the order above, every key inside a schema
// sorted, two-space indentation, a final newline — so the same contracts
// give the same bytes and a change reviews in git as the lines that
// changed. [Parse] and [ReadFile] read it and reject, in one line,
// malformed JSON (with line and column), a missing or unknown version,
// unknown fields, duplicate names and digests that no longer match their
// tool; [Lock.Marshal] writes it.
//
// Normalization (see [NewTool]) sorts keys, writes numbers one way, sorts
// "required", and inlines local "$ref" where that is safe and cannot loop,
// so that moving a definition into $defs is not a change. Defaults are
// stored, and compared apart from the rest: a new default is RISKY, never
// BREAKING.
//
// # Severities
//
// [Diff] classifies each change as BREAKING (a call that was valid may now
// be rejected), RISKY (valid calls stay valid but may mean something
// else), SAFE (every valid call stays valid, with the same meaning) or
// COSMETIC (nothing a validator checks changed); for the output schema the
// analysis is read the other way. Diff's documentation lists the rules.
//
// # Contract awareness
//
// [ForTool] picks what a validation_error's contract_awareness section
// shows for one failed call: the BREAKING and RISKY changes of exactly that
// tool (no substring or prefix match), capped, with the number left out.
// This package imports only the standard library; an MCP integration turns
// each [Change] into an envelope.ContractChange (Severity.String(), Field,
// Description, Before, After) and the omitted count into Contract.More.
package contract

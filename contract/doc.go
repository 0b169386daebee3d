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
// [Diff] classifies each change by what it does to the values a schema
// accepts. For the input schema, where the client sends values:
//
//   - BREAKING: a call that was valid may now be rejected. A tool removed; a
//     property removed (even where unknown properties are still accepted,
//     the server no longer reads it); a property newly required, or added
//     as required; a type narrowed or changed; an enum value removed; an
//     enum or const added or a const changed; a bound tightened (minimum or
//     exclusiveMinimum raised, maximum or exclusiveMaximum lowered, the same
//     for minLength/maxLength, minItems/maxItems, minProperties/
//     maxProperties, minContains/maxContains), or added; multipleOf added,
//     or changed to a value that is not a divisor of the old one; a pattern
//     or format added or changed; uniqueItems required; additionalProperties
//     closed or constrained; an anyOf or oneOf alternative removed, an allOf
//     member added; a keyword this package does not analyse (not, if,
//     dependentRequired, patternProperties, a remaining $ref …) added or
//     changed.
//   - RISKY: valid calls stay valid but may mean something else. A default
//     added, changed or removed (a call that omits the field behaves
//     differently); a property deprecated; the $schema dialect changed; a
//     oneOf alternative added (a value that matches two alternatives becomes
//     invalid); and a loosening that admits a class of values the old
//     schema ruled out entirely — see below.
//   - SAFE: every valid call stays valid, with the same meaning. A tool
//     added; an optional property added; a property no longer required; a
//     type widened; an enum value added; a bound loosened or removed;
//     multipleOf changed to a divisor of the old one, or removed; a pattern
//     or format removed; additionalProperties opened; an anyOf alternative
//     added, an allOf member removed.
//   - COSMETIC: nothing a validator checks changed. Descriptions (of the
//     tool and of every property, required or not), titles, examples,
//     $comment, readOnly/writeOnly, unknown keywords (x-…), the order of
//     enum values, and spellings that accept the same values
//     (["integer","number"] and "number").
//
// The rule for loosenings that change meaning: a loosened bound is SAFE
// unless it lets in a class of values the old schema ruled out entirely and
// that commonly carries a meaning of its own — zero, negative or positive
// numbers (a lower bound crossing 0: an amount that may now be 0 or
// negative, read as "free" or "refund"), empty strings, arrays or objects
// (minLength, minItems or minProperties dropping to 0: "" or [] read as
// "none" or "all"), or null (a type widened to include it). Those are RISKY.
// Each bound answers for its own change: removing a maximum from a money
// field that keeps its minimum admits only larger amounts of the same kind,
// which is SAFE; raising a maximum from -1 to 5 admits zero and positives,
// which is RISKY.
//
// Descriptions are COSMETIC even on required properties: most rewrites are
// wording, and a RISKY description change would crowd the few changes a
// validation error has room for. A change of meaning the schema can express
// (a renamed property, a new format, new bounds) is caught as such.
//
// For the output schema, where the client receives values, the same
// analysis is read the other way: a narrowing promises more (SAFE), a
// widening may hand the client values it never handled (RISKY), an
// incompatible change breaks it (BREAKING). A property no longer returned,
// or no longer always returned, is BREAKING (RISKY when it was optional
// anyway); the output schema removed is BREAKING, added is SAFE.
//
// Combinators are matched by structure, not by position: identical
// alternatives first, then alternatives with the same "type", in order;
// matched pairs are compared keyword by keyword ("In alternative 2 of anyOf:
// Maximum length lowered from 5 to 3"); the rest were removed or added.
// Nested objects, array items ("items[*].sku"), tuple positions ("pt[0]"),
// additional-property values ("labels[*]") and definitions kept for
// recursive references ("$defs.Node.v") are compared recursively.
//
// Diff's result is sorted: most severe first, then by tool, field and
// location, so that the same two snapshots always give the same list.
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

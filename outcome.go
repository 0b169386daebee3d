package selfheal

import "time"

// Outcome is how one answer to a bad call settled: what the MCP
// integrations' and the proxy's WithOutcomes report, so that an operator
// sees whether the answers are repaired.
type Outcome struct {
	// Tool is the tool's name.
	Tool string
	// Answer is the id of the answer settled, the "id" of its call-log
	// line in the proxy.
	Answer string
	// Outcome is "repaired" (the session's next call of the tool was
	// accepted), "failed_same" (answered again, with issues at the same
	// fields), "failed_other" (answered again, on other fields) or
	// "abandoned" (no call of the tool came in time, or the session ended).
	Outcome string
	// Attempt counts the answers the tool got in a row in the session, this
	// one included: 1 for an answer to a first bad call, 2 for the answer
	// to a retry that failed again, and so on. A repaired outcome of
	// Attempt n took n retries.
	Attempt int
	// Elapsed is the time from the answer to the call that settled it (to
	// the moment it was found abandoned, for "abandoned").
	Elapsed time.Duration
}

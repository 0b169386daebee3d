package envelope

import (
	"strconv"
	"strings"
	"time"
)

// CallError is the Go error a client gets for a failed tool call whose
// result is one of this package's envelopes: the result said isError true
// and its text parsed as a <tool_error> or a <validation_error>. The MCP
// client helpers (mcp/gosdk.CallTool, mcp/mcpgo.CallTool) return it; find
// it with errors.As and branch on Code instead of matching strings.
//
// Both envelopes are flattened into one struct so a client switches on Code
// alone: a validation_error reads as Code VALIDATION_ERROR, Severity error,
// with its Fields set and its recovery line in Recovery. Sections the
// envelope did not carry are zero.
type CallError struct {
	Code       Code          // the tool_error's code; VALIDATION_ERROR for a validation_error
	Severity   Severity      // error or critical; warning only if a server flagged a warning isError
	Message    string        // the tool_error's message; empty for a validation_error
	Recovery   string        // what the model should do next; for a validation_error its recovery line
	Actions    []string      // tools the model may call instead
	Details    []Detail      // the tool_error's key/value details, in order
	RetryAfter time.Duration // how long to wait before calling again; zero when not given

	// The validation_error's sections; zero for a tool_error.
	Action string  // the tool action the arguments were meant for
	Fields []Field // one per invalid argument: Name is its path ("items[0].name", "(root)"), Text what is wrong
	More   string  // the note on issues left out, if any
	// What the server itself said, when a proxy forwarded the call and the
	// server rejected it (server_message): its reason may not be the fields'.
	ServerMessage string
	Contract      *Contract // the tool's contract changes (contract_awareness), if any

	// Text is the raw text of the result, every text block in order: the
	// envelope as the model read it.
	Text string
}

// maxErrorPaths is how many field paths Error lists before "…".
const maxErrorPaths = 5

// Error returns one line. For a tool_error it is "CODE: message", as
// [ToolError.Error]. For a validation_error it counts the fields and lists
// their paths, at most five then "…":
//
//	VALIDATION_ERROR: 2 fields: age, email
//
// Line breaks in the message or a path are written as spaces, so the line
// stays one log line.
func (e *CallError) Error() string {
	s := string(e.Code.orInternal())
	if e.Code != ValidationErrorCode || e.Message != "" {
		if e.Message != "" {
			s += ": " + oneLine.Replace(e.Message)
		}
		return s
	}
	s += ": " + strconv.Itoa(len(e.Fields)) + " field"
	if len(e.Fields) != 1 {
		s += "s"
	}
	for i, f := range e.Fields {
		sep := ", "
		if i == 0 {
			sep = ": "
		}
		if i == maxErrorPaths {
			return s + sep + "…"
		}
		s += sep + oneLine.Replace(f.Name)
	}
	return s
}

// oneLine writes line breaks as spaces.
var oneLine = strings.NewReplacer("\r\n", " ", "\r", " ", "\n", " ")

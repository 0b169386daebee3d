package toolcall

import (
	"errors"
	"net/http"
	"strings"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
)

// MetaLocale is the _meta key a client may set to choose the language of
// the validation_error it gets back, as a BCP 47 tag or an Accept-Language
// value.
const MetaLocale = "selfheal/locale"

// MetaIssues is the _meta key of a validation failure's issues when the tool
// declares an output schema (clients check structuredContent against it even
// when isError is true).
const MetaIssues = "selfheal/issues"

// IssuesContent is the structured form of a validation failure: JSON
// {"issues": [...]}, each issue in Zod v4's issue JSON, without inputs (see
// Answer).
type IssuesContent struct {
	Issues issues.List `json:"issues"`
	// ServerMessage is what the server said when it rejected the call
	// (see mcp/proxy): set only where selfheal's answer takes the place of
	// the server's.
	ServerMessage string `json:"serverMessage,omitempty"`
}

// Answer returns the validation_error for the issues of a call of action,
// with the contract_awareness section c when it is not nil (see
// Config.ToolContract), and its structured form: the issues as e shows
// them (see selfheal.Engine.Result), in the order of the text's lines,
// without their inputs, as Zod's issues do not carry them unless asked to
// (reportInput), and within e's budgets whatever the model sent. The value
// sent may be a secret (a password, or an object holding one under an
// unknown key); the text already shows every value that may be shown,
// redacted where the field is sensitive. list is not modified; a caller
// that keeps it as an error too passes that error, boxed once.
func Answer(e *selfheal.Engine, action string, list error, c *envelope.Contract) (envelope.ValidationError, IssuesContent) {
	v, shown := e.Result(action, list)
	v.Contract = c
	return v, IssuesContent{Issues: shown}
}

// Validate validates inst against sch: the issues are the caller's own,
// as sch.Validate gives them.
func Validate(sch *jsonschemav6.Schema, inst any) issues.List {
	return sch.Validate(inst)
}

// Summary returns the codes of the issues, in order, and their paths, each
// once: what the proxy's call log says of an answer, and the fields by
// which a Tracker (package repair) tells a retry failing on the same
// fields. Given Structured's issues, long keys in paths are already cut.
func Summary(list issues.List) (codes, paths []string) {
	codes = make([]string, 0, len(list))
	seen := map[string]bool{}
	for i := range list {
		codes = append(codes, string(list[i].Code))
		p := list[i].Path.String()
		if !seen[p] {
			seen[p] = true
			paths = append(paths, p)
		}
	}
	return codes, paths
}

// AsToolError returns the envelope to send for a handler's error and
// whether err held one: an envelope of package envelope found in err's tree
// comes back unchanged; any other error gives INTERNAL_ERROR (or TIMEOUT for
// a deadline), as envelope.Wrap.
func AsToolError(err error) (envelope.ToolError, bool) {
	var (
		b  *envelope.Builder
		v  envelope.ToolError
		pv *envelope.ToolError
	)
	ok := errors.As(err, &b) || errors.As(err, &v) || errors.As(err, &pv)
	return envelope.Wrap(err), ok
}

// MetaLocaleOf returns the trimmed MetaLocale entry of a _meta map, or "".
func MetaLocaleOf(meta map[string]any) string {
	if s, ok := meta[MetaLocale].(string); ok {
		return strings.TrimSpace(s)
	}
	return ""
}

// AcceptLanguage returns the trimmed Accept-Language of an HTTP header, or
// "" for a nil header.
func AcceptLanguage(h http.Header) string {
	if h == nil {
		return ""
	}
	return strings.TrimSpace(h.Get("Accept-Language"))
}

// NotObject returns the issue of arguments that are JSON but not an
// object: invalid_type at (root), expected object.
func NotObject(inst any) issues.List {
	return issues.List{{Code: issues.InvalidType, Expected: issues.TypeObject, Input: inst, Source: "mcp:arguments"}}
}

// Absent prepends to list, the issues of absent arguments validated as {},
// the issue saying at (root) that the arguments are missing.
func Absent(list issues.List) issues.List {
	return append(issues.List{{Code: issues.InvalidType, Expected: issues.TypeObject, Absent: true, Source: "mcp:arguments"}}, list...)
}

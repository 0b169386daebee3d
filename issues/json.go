package issues

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// MarshalJSON writes n as a JSON number when it is one, so that bounds read
// as numbers in TypeScript, and as a string otherwise (dates, durations).
func (n Number) MarshalJSON() ([]byte, error) {
	if n.IsNumeric() {
		return []byte(n), nil
	}
	return json.Marshal(string(n))
}

// UnmarshalJSON accepts a JSON number (kept exactly as written) or a string.
func (n *Number) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*n = Number(s)
		return nil
	}
	if !isJSONNumber(string(data)) {
		return fmt.Errorf("issues: %s is not a number", data)
	}
	*n = Number(data)
	return nil
}

// jsonIssue is the wire form: Zod v4's issue field names (with "pattern",
// "prefix", "suffix" and "includes" as Zod writes them for its formats),
// plus "layout", "country", "uniqueBy", "param", "allowed", "received"
// (the type of an Unknown input, whose value is not reported), "check",
// "ref", "when" and "source", which Zod does not have and TypeScript
// readers may ignore.
type jsonIssue struct {
	Code      Code              `json:"code"`
	Path      Path              `json:"path"`
	Input     json.RawMessage   `json:"input,omitempty"`
	Expected  string            `json:"expected,omitempty"`
	Origin    string            `json:"origin,omitempty"`
	Minimum   Number            `json:"minimum,omitempty"`
	Maximum   Number            `json:"maximum,omitempty"`
	Inclusive *bool             `json:"inclusive,omitempty"`
	Exact     bool              `json:"exact,omitempty"`
	Format    string            `json:"format,omitempty"`
	Pattern   string            `json:"pattern,omitempty"`
	Prefix    string            `json:"prefix,omitempty"`
	Suffix    string            `json:"suffix,omitempty"`
	Includes  string            `json:"includes,omitempty"`
	Layout    string            `json:"layout,omitempty"`
	Country   string            `json:"country,omitempty"`
	UniqueBy  string            `json:"uniqueBy,omitempty"`
	Param     string            `json:"param,omitempty"`
	Keys      []string          `json:"keys,omitempty"`
	Allowed   []string          `json:"allowed,omitempty"`
	Values    []json.RawMessage `json:"values,omitempty"`
	Divisor   Number            `json:"divisor,omitempty"`
	Errors    [][]Issue         `json:"errors,omitempty"`
	Issues    []Issue           `json:"issues,omitempty"`
	Key       json.RawMessage   `json:"key,omitempty"`
	Message   string            `json:"message,omitempty"`
	Received  *string           `json:"received,omitempty"`
	Check     string            `json:"check,omitempty"`
	Ref       json.RawMessage   `json:"ref,omitempty"`
	When      json.RawMessage   `json:"when,omitempty"`
	Source    string            `json:"source,omitempty"`
}

// MarshalJSON writes the issue in Zod v4's shape. An absent input has no
// "input" member, as in Zod; a value that JSON cannot represent (a channel,
// a function, NaN) is written as null rather than failing the whole list.
func (is Issue) MarshalJSON() ([]byte, error) {
	j := jsonIssue{
		Code: is.Code, Path: is.Path, Expected: is.Expected.String(), Origin: is.Origin,
		Minimum: is.Minimum, Maximum: is.Maximum, Exact: is.Exact,
		Format: is.Format, Pattern: is.Pattern, Prefix: is.Prefix, Suffix: is.Suffix, Includes: is.Includes,
		Layout: is.Layout, Country: is.Country, UniqueBy: is.UniqueBy, Param: is.Param, Keys: is.Keys, Allowed: is.Allowed,
		Divisor: is.Divisor, Errors: is.Branches, Issues: is.Issues,
		Message: is.Message, Check: is.Check, Source: is.Source,
	}
	if j.Path == nil {
		j.Path = Path{}
	}
	if is.Code == TooSmall || is.Code == TooBig {
		j.Inclusive = &is.Inclusive
	}
	if u, ok := is.Input.(Unknown); ok && !is.Absent {
		j.Received = &u.Type // Zod leaves out an input it does not report
	} else if !is.Absent {
		j.Input = rawJSON(is.Input)
	}
	for _, v := range is.Values {
		j.Values = append(j.Values, rawJSON(v))
	}
	if is.Key != nil {
		j.Key = rawJSON(is.Key)
	}
	if is.Ref != nil {
		j.Ref = rawJSON(is.Ref)
	}
	if is.When != nil {
		j.When = rawJSON(is.When)
	}
	return json.Marshal(j)
}

// rawJSON is v as encoding/json writes it, or null when it cannot.
func rawJSON(v any) json.RawMessage {
	data, err := json.Marshal(v)
	if err != nil {
		return json.RawMessage("null")
	}
	return data
}

// UnmarshalJSON reads Zod v4's shape back. Numbers in input, values and key
// are decoded as json.Number so that no digit is lost.
func (is *Issue) UnmarshalJSON(data []byte) error {
	var j struct {
		jsonIssue
		Values json.RawMessage `json:"values,omitempty"`
		Ref    *Ref            `json:"ref,omitempty"`
		When   *Condition      `json:"when,omitempty"`
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	out := Issue{
		Code: j.Code, Path: j.Path, Origin: j.Origin,
		Minimum: j.Minimum, Maximum: j.Maximum, Exact: j.Exact,
		Format: j.Format, Pattern: j.Pattern, Prefix: j.Prefix, Suffix: j.Suffix, Includes: j.Includes,
		Layout: j.Layout, Country: j.Country, UniqueBy: j.UniqueBy, Param: j.Param, Keys: j.Keys, Allowed: j.Allowed,
		Divisor: j.Divisor, Branches: j.Errors, Issues: j.Issues,
		Message: j.Message, Check: j.Check, Ref: j.Ref, When: j.When, Source: j.Source,
	}
	if j.Inclusive != nil {
		out.Inclusive = *j.Inclusive
	}
	expected, err := parseTypes(j.Expected)
	if err != nil {
		return err
	}
	out.Expected = expected
	switch {
	case j.Input == nil && j.Received != nil:
		out.Input = Unknown{Type: *j.Received}
	case j.Input == nil:
		out.Absent = true
	default:
		if err := decodeNumbers(j.Input, &out.Input); err != nil {
			return err
		}
	}
	if j.Values != nil {
		if err := decodeNumbers(j.Values, &out.Values); err != nil {
			return err
		}
	}
	if j.Key != nil {
		if err := decodeNumbers(j.Key, &out.Key); err != nil {
			return err
		}
		if n, ok := out.Key.(json.Number); ok {
			if i, err := strconv.Atoi(string(n)); err == nil {
				out.Key = i
			}
		}
	}
	*is = out
	return nil
}

func decodeNumbers(raw json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return dec.Decode(v)
}

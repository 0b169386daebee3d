package contract

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/selfheal/selfheal/internal/jsonvalue"
)

// version is the lockfile format this package reads and writes.
const version = 1

// Tool is the contract of one tool: what a client sees in tools/list, in the
// normalized form that is stored and compared. Build one with [NewTool]; a
// Tool from [Parse] or [NewTool] has its schemas in canonical JSON (compact,
// keys sorted) and its Digest set.
type Tool struct {
	// Name is the tool's name, the action of its validation errors.
	Name string `json:"name"`
	// Digest is "sha256:" and the hex SHA-256 of the tool's canonical JSON
	// (name, description and schemas): equal digests, equal contracts.
	Digest string `json:"digest"`
	// Description is the tool's description; empty when it has none.
	Description string `json:"description,omitempty"`
	// InputSchema is the normalized JSON Schema of the arguments.
	InputSchema json.RawMessage `json:"inputSchema"`
	// OutputSchema is the normalized JSON Schema of the structured result;
	// nil when the tool declares none.
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

// Lock is a snapshot of a server's tool contracts: the content of a
// lockfile. Its tools are sorted by name, one per name.
//
// A lockfile, selfheal.lock by convention, is the JSON of a Lock, as
// [Lock.Marshal] writes it and [Parse] reads it:
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
// later [Diff] is field by field.
type Lock struct {
	// Version is the format version, 1 for everything this package
	// builds.
	Version int `json:"version"`
	// Tools holds one entry per tool, sorted by name.
	Tools []Tool `json:"tools"`
}

// NewTool normalizes one tool's contract. A schema may be JSON text
// (json.RawMessage or []byte) or any value encoding/json marshals into a JSON
// Schema: a map[string]any as MCP clients decode it, an SDK's schema type.
// A nil or JSON null input schema is stored as {} (any arguments); a nil or
// null output schema means the tool has none.
//
// Normalization: object keys sorted, numbers in one canonical form (1.0 is 1,
// 1E2 is 100; numbers compare as the float64 MCP clients decode them to,
// 64-bit integers exactly), "required" sorted and deduplicated, a "type" list
// sorted (a list of one is written as that type), and local "$ref" inlined
// where that is safe: a reference with nothing beside it but annotations, not
// part of a reference cycle, within a fixed expansion budget. When every
// reference was inlined, the root's "$defs" and "definitions" are dropped,
// so moving a definition into $defs is not a change. Defaults stay in the
// stored form; [Diff] compares them apart from the rest, so a new default is
// RISKY, never BREAKING.
func NewTool(name, description string, inputSchema, outputSchema any) (Tool, error) {
	t := Tool{Name: strings.ToValidUTF8(name, "\uFFFD"), Description: strings.ToValidUTF8(description, "\uFFFD")}
	if name == "" {
		return Tool{}, errors.New("contract: a tool needs a name")
	}
	in, err := schemaJSON(inputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("contract: tool %q: input schema: %w", name, err)
	}
	if in == nil {
		in = map[string]any{}
	}
	t.InputSchema = encode(normalizeSchema(in))
	out, err := schemaJSON(outputSchema)
	if err != nil {
		return Tool{}, fmt.Errorf("contract: tool %q: output schema: %w", name, err)
	}
	if out != nil {
		t.OutputSchema = encode(normalizeSchema(out))
	}
	t.Digest = digest(&t)
	return t, nil
}

// schemaJSON decodes a schema given as JSON text or as a Go value; nil for
// nil or JSON null.
func schemaJSON(v any) (any, error) {
	var data []byte
	switch v := v.(type) {
	case nil:
		return nil, nil
	case json.RawMessage:
		data = v
	case []byte:
		data = v
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		data = b
	}
	if len(data) == 0 {
		return nil, nil
	}
	return jsonvalue.DecodeLocated(data)
}

// digest computes a tool's Digest from its canonical JSON.
func digest(t *Tool) string {
	doc := map[string]any{"name": t.Name, "inputSchema": t.InputSchema}
	if t.Description != "" {
		doc["description"] = t.Description
	}
	if t.OutputSchema != nil {
		doc["outputSchema"] = t.OutputSchema
	}
	sum := sha256.Sum256(encode(doc))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// NewLock returns a lock of the given tools, sorted by name. Two tools with
// one name are an error. The lock holds copies of the tools' schemas: a
// caller that reuses its buffers does not change the lock.
func NewLock(tools []Tool) (*Lock, error) {
	l := &Lock{Version: version, Tools: make([]Tool, len(tools))}
	for i, t := range tools {
		t.InputSchema = bytes.Clone(t.InputSchema)
		t.OutputSchema = bytes.Clone(t.OutputSchema)
		l.Tools[i] = t
	}
	slices.SortStableFunc(l.Tools, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	for i := 1; i < len(l.Tools); i++ {
		if l.Tools[i].Name == l.Tools[i-1].Name {
			return nil, fmt.Errorf("contract: two tools named %q", l.Tools[i].Name)
		}
	}
	return l, nil
}

// Tool returns the tool with exactly this name, or nil.
func (l *Lock) Tool(name string) *Tool {
	if l == nil {
		return nil
	}
	i, ok := slices.BinarySearchFunc(l.Tools, name, func(t Tool, name string) int { return strings.Compare(t.Name, name) })
	if !ok {
		return nil
	}
	return &l.Tools[i]
}

// Parse reads a lockfile. It reports, each in one line, malformed JSON with
// its line and column, a missing or unknown version, unknown fields, tools
// without a name or an input schema, duplicate names, and a digest that does
// not match its tool (the file was edited by hand: regenerate it, or delete
// the digest, which is then computed). Tools may come in any order; they are
// sorted. Schemas are stored as written, in canonical JSON.
func Parse(data []byte) (*Lock, error) {
	var head struct {
		Version *int            `json:"version"`
		Tools   json.RawMessage `json:"tools"`
	}
	if _, err := jsonvalue.DecodeLocated(data); err != nil {
		return nil, err
	}
	if err := strictUnmarshal(data, &head); err != nil {
		return nil, err
	}
	if head.Version == nil {
		return nil, errors.New(`not a selfheal lockfile: no "version"`)
	}
	if *head.Version != version {
		return nil, fmt.Errorf("lockfile version %d is not supported (this selfheal reads version %d)", *head.Version, version)
	}
	var raw []struct {
		Name         *string         `json:"name"`
		Digest       string          `json:"digest"`
		Description  string          `json:"description"`
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if len(head.Tools) > 0 && !bytes.Equal(head.Tools, []byte("null")) {
		if err := strictUnmarshal(head.Tools, &raw); err != nil {
			return nil, fmt.Errorf("tools: %w", err)
		}
	}
	tools := make([]Tool, 0, len(raw))
	for i, r := range raw {
		if r.Name == nil || *r.Name == "" {
			return nil, fmt.Errorf("tools[%d]: no name", i)
		}
		t := Tool{Name: *r.Name, Description: r.Description}
		if len(r.InputSchema) == 0 || bytes.Equal(r.InputSchema, []byte("null")) {
			return nil, fmt.Errorf("tool %q: no inputSchema", t.Name)
		}
		in, _ := jsonvalue.DecodeLocated(r.InputSchema) // well-formed: the whole file decoded
		t.InputSchema = encode(canonicalValue(in, 0))
		if len(r.OutputSchema) > 0 && !bytes.Equal(r.OutputSchema, []byte("null")) {
			out, _ := jsonvalue.DecodeLocated(r.OutputSchema)
			t.OutputSchema = encode(canonicalValue(out, 0))
		}
		t.Digest = digest(&t)
		if r.Digest != "" && r.Digest != t.Digest {
			return nil, fmt.Errorf("tool %q: digest %s does not match its contract (%s): the file was edited by hand; regenerate it with selfheal lock, or delete the digest", t.Name, r.Digest, t.Digest)
		}
		tools = append(tools, t)
	}
	return NewLock(tools)
}

// strictUnmarshal decodes data into v, rejecting unknown fields, and says
// where a value of the wrong type is.
func strictUnmarshal(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if strings.HasPrefix(err.Error(), "json: unknown field ") {
			return fmt.Errorf("unknown field %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return jsonvalue.Located(data, err)
	}
	return nil
}

// ReadFile parses the lockfile at path; errors start with the path.
func ReadFile(path string) (*Lock, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	l, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return l, nil
}

// Marshal returns the lockfile text of l: JSON indented by two spaces,
// ending in a newline, tools sorted by name, each tool's fields in a fixed
// order (name, digest, description, inputSchema, outputSchema) and every key
// inside a schema sorted, so that the file is the same for the same
// contracts and a change shows in git as the lines that changed. Schemas
// are re-encoded canonically and digests recomputed, so a Tool edited in
// memory is written consistently; l itself is not modified.
func (l *Lock) Marshal() ([]byte, error) {
	if l == nil {
		return nil, errors.New("contract: nil lock")
	}
	if l.Version != version {
		return nil, fmt.Errorf("contract: lock version %d (this package writes version %d)", l.Version, version)
	}
	sorted, err := NewLock(l.Tools) // a copy: l is not modified
	if err != nil {
		return nil, err
	}
	for i := range sorted.Tools {
		t := &sorted.Tools[i]
		in, err := jsonvalue.DecodeLocated(t.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("contract: tool %q: input schema: %w", t.Name, err)
		}
		t.InputSchema = encode(canonicalValue(in, 0))
		if t.OutputSchema != nil {
			out, err := jsonvalue.DecodeLocated(t.OutputSchema)
			if err != nil {
				return nil, fmt.Errorf("contract: tool %q: output schema: %w", t.Name, err)
			}
			t.OutputSchema = encode(canonicalValue(out, 0))
		}
		t.Digest = digest(t)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sorted); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

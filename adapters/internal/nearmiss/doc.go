// Package nearmiss finds, for the two JSON Schema adapters, the keys of an
// instance that are near misses of declared properties: "dryrun" sent where
// the schema declares "dryRun" and "dryRun" was not sent. Most MCP servers
// have open schemas (no additionalProperties: false) and silently drop the
// keys they do not declare, so the library finds such a call valid and the
// tool runs without the argument the model meant to give it (edit_file with
// "dryrun": true edits the file for real).
//
// An adapter describes its compiled schema once as a graph of Shapes (which
// names each object declares, which schemas apply below): it copies each
// subschema's keywords from its library (Keywords), Describe decides for
// both versions what they mean for the walk, and Build links the result.
// Append walks an instance along it after the library has validated it. It imports the
// issues package, the standard library and internal/suggest only, never
// either jsonschema library.
package nearmiss

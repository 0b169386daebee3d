// Package schemaconv holds what the two JSON Schema converters,
// internal/schemav5 and internal/schemav6, do alike once a library's
// failure has been read: the keyword table that words the failure of most
// keywords as an issue from the facts each version reads of its own error
// (Failure, Sink.Keyword); the sink that merges unrecognized keys and
// excess items into one issue per object or array; the description of a
// union's alternatives and the names unevaluatedProperties leaves allowed,
// from what each version reads of its subschemas (Subschema); the reading
// of an instance location into a path and the value sent, the wording of a
// value where the schema is false, the lookup of a keyword in the schema
// documents (numbers as written), the decoding of arguments and of string
// contents, and the small JSON helpers around them.
//
// It imports the issues model (issues, issuesx) and the standard library
// only, never either jsonschema library: what depends on a library's types
// stays in its converter.
package schema

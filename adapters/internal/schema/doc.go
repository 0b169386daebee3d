// Package schema holds what the two JSON Schema adapters, jsonschemav5 and
// jsonschemav6, do alike once a library's failure has been read: the
// keyword table that words the failure of most keywords as an issue from
// the facts each version reads of its own error (Failure, Sink.Keyword);
// the sink that merges unrecognized keys and excess items into one issue
// per object or array; unions (Union, Discriminated) and the names
// unevaluatedProperties leaves allowed, from what each version's one reader
// copies of its subschemas (Subschema), which also serves walking a schema
// (Index) and describing it for near misses (NearMisses); locations, the
// schema documents (numbers as written), and the validate flow the
// adapters' Validate and ValidateJSON share.
//
// It never imports either jsonschema library: what depends on a library's
// types stays in its adapter.
package schema

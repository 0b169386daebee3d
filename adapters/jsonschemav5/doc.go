// Package jsonschemav5 turns the validation failures of
// github.com/santhosh-tekuri/jsonschema/v5 (v5.3.1) into normalized issues,
// the same issues package jsonschemav6 gives for the same failures.
//
// Version 5's errors carry only locations and English text. This package
// never reads the text: it recovers the keyword that failed from each
// error's keyword location, the constraint from the compiled schema's
// exported fields (MinLength, Minimum, Enum, Pattern, Required,
// Properties …) and the value sent from the instance at the instance
// location.
//
// Compile a schema once with Compile and call Schema.Validate (or
// ValidateJSON) per request: it returns nil for valid arguments and
// otherwise an issues.List, which selfheal's Engine.Format renders as the
// validation_error a model reads. An error from validating with the library
// yourself goes to selfheal's Engine, which recognises it and words it from
// the library's message; since version 5's errors name no values, for
// issues with the values sent validate through the Schema (see FromCompiled
// for a schema compiled with the library). Schema.AppendValidate appends to
// a list the caller reuses.
//
// Every failure is reported, not the first: each missing required property
// at its own path, unknown keys as one unrecognized_keys issue per object
// with the declared names, anyOf and oneOf as invalid_union with every
// alternative's issues, $ref, allOf and if/then/else followed
// transparently. Bounds are written exactly as the schema wrote them ("0.1",
// "1e9") when Compile saw the document. Version 5 gives no reason for a
// format failure, so Message stays empty where jsonschemav6 fills it.
// Version 5 reads patterns with Go's regexp (RE2) and takes no other
// engine: an ECMAScript-only pattern (lookaround, backreferences) is an
// error of Compile; jsonschemav6 reads patterns as JSON Schema does.
// WithTypos adds near misses of declared properties.
package jsonschemav5

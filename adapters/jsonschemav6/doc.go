// Package jsonschemav6 turns the validation failures of
// github.com/santhosh-tekuri/jsonschema/v6 into normalized issues, mapped
// from the library's typed error kinds (package kind), never from its
// English text. Patterns are read as JSON Schema defines them, as
// ECMAScript regular expressions (see Compile).
//
// Compile a schema once with Compile and call Schema.Validate (or
// ValidateJSON) per request: it returns nil for valid arguments and
// otherwise an issues.List, which selfheal's Engine.Format renders as the
// validation_error a model reads. An error from validating with the library
// yourself goes to selfheal's Engine, which recognises it and words it from
// what the error carries; for issues with the values sent and what the
// schema knows, validate through the Schema.
// Schema.AppendValidate appends to a list the caller reuses.
//
// Every failure is reported, not the first: each missing required property
// at its own path, unknown keys (additionalProperties: false,
// unevaluatedProperties: false) as one unrecognized_keys issue per object
// with the declared names for suggestions, anyOf and oneOf as invalid_union
// with every alternative's issues, $ref, allOf and if/then/else followed
// transparently. Bounds are written exactly as the schema wrote them ("0.1",
// "1e9"). A format failure keeps the library's reason in the issue's
// Message, for logs; the formatter words formats itself.
// WithTypos adds near misses of declared properties.
package jsonschemav6

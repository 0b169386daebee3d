// Package validatorv10 turns go-playground/validator v10 failures into
// normalized issues (package issues) that the formatter words precisely:
// every built-in tag, the built-in aliases, or-groups (email|uuid), dive
// and keys…endkeys, and the tags a server registers itself.
//
//	err := validate.Struct(args)
//	list, ok := validatorv10.Issues(err)
//
// Each call builds its issues afresh, keeping nothing between calls: they
// are the caller's own to change.
//
// Each tag becomes the Zod code it means, with its parameters: sizes by the
// kind of the value (characters of a string, items of a slice or map, the
// value of a number, a time.Duration against a duration, a time.Time
// against now), oneof and noneof as the allowed or forbidden values, format
// tags as invalid_format with a format the catalogs word and a valid
// example, string-content tags with their parameter, unique with the items
// that repeat, the required_* and excluded_* tags with the condition under
// which they apply, and cross-field tags (eqfield, gtcsfield, fieldcontains
// …) with the other field and its value.
//
// Paths use the names validator reports, so a validator with a tag-name
// function reading json gives addresses[0].city; the top-level struct's
// name is dropped. Bind attaches the validated value, which lets other
// fields be named by their JSON names and shown with their values; Map
// accepts ValidateMap's result. Adapters never word anything: the
// formatter does.
//
// Beyond the checks and formats of package issues, this package's issues
// carry Check "default" (isdefault: the field must be left at its zero
// value), "method" (the value's own validation method refused it) or
// "rule" (a tag the server registered with validator, named in Format;
// give it words with ErrorsWith), and Format "time_layout" (a date or
// time in the Go layout held in Layout) or "postcode" (a postal code of
// the country held in Country).
//
// selfheal's Engine reads Bind's and Map's errors like any issues.Carrier,
// and a raw validator.ValidationErrors precisely when it is built with
// WithAdapters(validatorv10.Errors), otherwise as one line per field
// naming the tag it failed.
package validatorv10

// Package schemav5 converts the failures of santhosh-tekuri/jsonschema v5
// into issues: the whole conversion, with the knowledge of a compiled
// schema (Schema.AppendIssues; a nil *Schema knows nothing), and, for an
// error handed over without its instance, from the library's messages
// alone (AppendIssues). The jsonschemav5 adapter wraps it for users: its
// Schema, and its Errors for a library error handed over alone. internal/schemav6 is its
// twin for version 6; what they word alike is internal/schemaconv's.
package schemav5

// Package schemav5 converts the failures of santhosh-tekuri/jsonschema v5
// into issues: the whole conversion, with the knowledge of a compiled
// schema (Schema.AppendIssues; a nil *Schema knows nothing), and, for an
// error handed over without its instance, from the library's messages
// alone (AppendIssues). The jsonschemav5 adapter wraps it for users; the
// root package's Engine calls it directly for a library error handed over
// alone, so that it need not import the adapter. internal/schemav6 is its
// twin for version 6; what they word alike is internal/schemaconv's.
package schemav5

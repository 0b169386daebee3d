// Package schemav6 converts the failures of santhosh-tekuri/jsonschema v6
// into issues: the whole conversion, with the knowledge of a compiled
// schema or without it (a nil *Schema), from the instance or without it
// (issues.Unknown{}). The jsonschemav6 adapter wraps it for users: its
// Schema, and its Errors for a library error handed over alone. internal/schemav5 is its
// twin for version 5; what they word alike is internal/schemaconv's.
package schemav6

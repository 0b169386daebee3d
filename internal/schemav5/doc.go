// Package schemav5 converts the failures of santhosh-tekuri/jsonschema v5
// that need neither the instance nor the compiled schema: what the
// jsonschemav5 adapter's Errors reads from a library error handed over
// alone, and what its Schema does in the same case.
package schemav5

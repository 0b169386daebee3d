// Package schemav5 converts the failures of santhosh-tekuri/jsonschema v5
// that need neither the instance nor the compiled schema: what the root
// package's Engine gets when handed a library error alone, and what the
// jsonschemav5 adapter does in the same case. Keeping it here lets the root
// read these errors without importing the adapter.
package schemav5

// Package jsonschematest runs the JSON Schema Test Suite, and a shared table
// of failures, through the JSON Schema adapters, so that each adapter is held
// to the same cases and the two to the same issues. It is used by tests only.
package jsonschematest

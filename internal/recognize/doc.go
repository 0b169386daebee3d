// Package recognize lets an adapter teach the root package's Engine to
// read the raw errors of the library it wraps (go-playground/validator's
// ValidationErrors, encoding/json's decode errors) without the root
// importing the adapter, and so without every program linking that
// library. An adapter registers its converter from an init function; a
// program that imports the adapter (or anything that does) has it.
//
// Errors of the adapters' own types need no registration: they implement
// issues.Carrier.
package recognize

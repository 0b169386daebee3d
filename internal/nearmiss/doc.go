// Package nearmiss is the one place that decides what a model most likely
// meant when what it sent is not what the schema declares: a name a few
// edits or a case away from a declared one (SameName, Closest), a value
// near an allowed one (NearValue), the alternative of a union it was
// aiming at (Chosen, Discriminates), and whether a list of issues holds a
// near miss of a key (HasNearMiss). The formatter words its "did you mean"
// with it, the adapters choose union alternatives with it, and the proxy
// answers near misses with it, so that what one calls a near miss the
// others do too.
//
// For the two JSON Schema adapters it also finds the near misses of open
// schemas, which a library finds valid (see jsonschemav6.WithTypos). An
// adapter describes its compiled schema once
// as a graph of Shapes (which names each object declares, which schemas
// apply below): it copies each subschema's keywords from its library
// (Keywords), Describe decides for both versions what they mean for the
// walk, and Build links the result. Append walks an instance along it after
// the library has validated it. The package imports neither jsonschema
// library.
package nearmiss

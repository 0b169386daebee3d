// Package fuzz holds the project's Go native fuzz targets, one file per
// package under test, so that every renderer is checked against hostile input
// in one place.
//
// The envelope targets (envelope_fuzz_test.go) put arbitrary strings into
// every slot of both wire envelopes and check that, whatever the input:
//
//  1. the output is well-formed XML under encoding/xml's strict decoder;
//  2. it has exactly the intended element tree: the same elements and
//     attributes, in order, and nothing injected;
//  3. envelope.Parse returns the strings that went in, after the documented
//     replacement of characters XML 1.0 forbids;
//  4. nothing panics.
//
// FuzzServerMessage, beside them, cuts an arbitrary server answer with
// formatter.ServerMessage, as the proxy does before it sets a
// validation_error's <server_message>, and checks that it stays one line,
// states its size when cut, and reads back exactly.
//
// FuzzParse (parse_test.go) gives envelope.Parse arbitrary text: it never
// panics, what it accepts encoding/xml's strict decoder reads as the same
// values, and rendering what it read and parsing again gives it back.
//
// FuzzBudget (budget_fuzz_test.go) sends arbitrary arguments, and the same
// bytes made wide and deep, through jsondecode and both JSON Schema
// adapters, and checks that the validation_error and the structured issues
// stay within the byte budget plus a constant and parse, whatever was sent.
//
// FuzzProxy (proxy_fuzz_test.go) drives mcp/proxy with random
// interleavings of valid, invalid and malformed messages in both
// directions, and checks that every line comes out exactly once on the
// other side or is answered exactly once, never both, never reordered.
//
// The seed corpus (f.Add calls, plus any failing inputs saved under
// testdata/fuzz/) runs as ordinary tests with go test ./fuzz/, including a
// 1 MiB hostile string that is left out while the fuzz engine runs, where it
// would slow the mutator down. To fuzz:
//
//	go test -run='^$' -fuzz=FuzzToolError -fuzztime=20s ./fuzz/
//	go test -run='^$' -fuzz=FuzzValidationError -fuzztime=20s ./fuzz/
//
// The package has no API of its own; its runnable example shows the property
// being tested on one hostile input.
package fuzz

package mcpgo

// InputSchemaValidation is inputSchemaValidation, for the tests of package
// mcpgo_test.
var InputSchemaValidation = inputSchemaValidation

// ErrInputSchemaValidation is errInputSchemaValidation, for the tests of
// package mcpgo_test.
var ErrInputSchemaValidation = errInputSchemaValidation

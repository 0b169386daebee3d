package mcpgo

// InputSchemaValidation is inputSchemaValidation, for the tests of package
// mcpgo_test.
var InputSchemaValidation = inputSchemaValidation

// ErrInputSchemaValidation is errInputSchemaValidation, for the tests of
// package mcpgo_test.
var ErrInputSchemaValidation = errInputSchemaValidation

// HasNumber is hasNumber, for the tests of package mcpgo_test.
var HasNumber = hasNumber

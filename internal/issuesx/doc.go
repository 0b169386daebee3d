// Package issuesx holds what the module's own packages need beside the
// issues model and a user building issues does not: the build limit and
// the issue that counts what was not built, the display order of issues,
// the Source values of issues the module finds itself, and small readers
// of the model's values.
//
// It keeps the issues package's surface to the model itself: what a
// user needs to write an issues.List of their own.
package issuesx

// Package surface holds the test that keeps the module's public API from
// growing back: it parses every package a user can import (all but
// internal/, cmd/, examples/, bench/, fuzz/, e2e/ and testdata/, without
// _test.go files), counts the exported names (top-level constants,
// variables, types and functions, and the exported methods of exported
// types, as go doc lists them; struct fields are not counted), fails when
// the total is above a ceiling, and checks that every one of them has a
// doc comment and that "go doc" of each package fits on one screen (50
// lines). It has no code of its own.
package surface

// Package facade gives the module's own packages what package selfheal
// keeps out of its API: the formatter an Engine words with, whose Bounded
// gives the structured issues the MCP integrations send beside the text.
// A user reaches the formatter only through the Engine's methods.
package facade

// Package hostile is the table of hostile arguments that every path of the
// module must answer within its budgets: 10 MiB values and keys, 100,000
// unknown keys and invalid items, 10,000-deep nesting, invalid UTF-8,
// markup in keys and values, numbers no float holds. The facade's tests and
// both MCP integrations' tests run the same table, so a bound that holds in
// one path holds in all. It is used by tests only.
package hostile

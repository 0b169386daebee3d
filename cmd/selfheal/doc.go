// Command selfheal checks tool arguments against a JSON Schema and prints
// what a model would be told, and keeps a lockfile of an MCP server's tool
// contracts.
//
//	selfheal check --schema FILE --args FILE [--action NAME] [--locale TAG]
//	               [--examples=false] [--draft 2020|2019|7|6|4] [--engine v6|v5] [--json]
//
// Exit status: 0 when the arguments are valid (nothing is printed), 1 when
// they are not (the validation_error, or with --json the issues as Zod-style
// JSON, on standard output), 2 for a usage error, an unreadable file,
// malformed JSON or a schema that does not compile (one line on standard
// error).
//
//	selfheal lock [--out selfheal.lock] [--timeout 30s] -- COMMAND [ARG...]
//
// starts the MCP server COMMAND over stdio, lists all its tools, writes
// their contracts to the lockfile (--out - writes standard output) and stops
// the server. Exit 0, or 2 with one line on standard error.
//
//	selfheal diff [--json] [--fail-on breaking|risky|safe|cosmetic|never] OLD NEW
//	selfheal diff [--json] [--fail-on ...] --live OLD -- COMMAND [ARG...]
//
// compares two lockfiles, or a lockfile with the tools the server COMMAND
// lists now, and prints one line per change, most severe first
// ("BREAKING billing.pay amount: Minimum raised from 0 to 1"), or with --json
// the changes as a JSON array. Exit 1 when a change is BREAKING (or as
// severe as --fail-on), 0 otherwise, 2 for a usage error, an unreadable or
// invalid lockfile, or a server that fails (one line on standard error).
package main

// Package redistest starts a real redis-server for a test, on a free
// loopback port, and stops it when the test ends. Tests of the Redis
// backends run against Redis itself, not a mock: the Lua scripts, the
// server's clock and its failures are what is being tested.
//
// When redis-server is not on PATH a test is skipped, except in CI (the
// environment variable CI is set), where it fails: CI installs Redis, so a
// missing one is a broken CI, not a reason to pass silently.
package redistest

// Package redistest starts a real redis-server for a test, on a free
// loopback port, and stops it when the test ends. Tests of the Redis
// backends run against Redis itself, not a mock: the Lua scripts, the
// server's clock and its failures are what is being tested.
//
// When redis-server is not on PATH a test is skipped, except in CI (the
// environment variable CI is set), where it fails: CI installs Redis, so a
// missing one is a broken CI, not a reason to pass silently. For that
// reason the package has no Example: one could neither skip nor fail.
// A test of a store that goes down:
//
//	func TestStoreDown(t *testing.T) {
//		rs := redistest.StartServer(t) // stopped when t ends
//		c := redis.NewClient(&redis.Options{Addr: rs.Addr})
//		defer c.Close()
//		rs.Stop() // as a crash would: connections are refused from now on
//		if err := c.Get(context.Background(), "k").Err(); err == nil {
//			t.Fatal("GET answered by a stopped Redis")
//		}
//	}
package redistest

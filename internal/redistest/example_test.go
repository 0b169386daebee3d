package redistest_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/selfheal/selfheal/internal/redistest"
)

// A test of a Redis backend gets its own empty redis-server, so tests share
// no keys and a test can crash its Redis without harming the others.
//
// This example is compiled but not run (it has no Output line): Start needs
// the *testing.T of a running test, and a real redis-server on PATH.
func Example() {
	testStoreDown := func(t *testing.T) { // in a test file: func TestStoreDown(t *testing.T)
		rs := redistest.StartServer(t) // stopped when t ends
		c := redis.NewClient(&redis.Options{Addr: rs.Addr})
		defer c.Close()
		ctx := context.Background()
		if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		rs.Stop() // as a crash would: connections are refused from now on
		if err := c.Get(ctx, "k").Err(); err == nil {
			t.Fatal("GET answered by a stopped Redis")
		}
	}
	_ = testStoreDown
}

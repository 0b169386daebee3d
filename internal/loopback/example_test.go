package loopback_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/loopback"
)

func ExampleHost() {
	for _, host := range []string{"localhost", "127.0.0.1", "::1", "0.0.0.0", "example.com"} {
		fmt.Println(host, loopback.Host(host))
	}
	// Output:
	// localhost true
	// 127.0.0.1 true
	// ::1 true
	// 0.0.0.0 false
	// example.com false
}

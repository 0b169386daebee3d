package jsonvalue_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/jsonvalue"
)

func ExampleDecode() {
	v, err := jsonvalue.Decode([]byte(`{"amount": 10.50}`))
	fmt.Println(v, err)
	_, err = jsonvalue.Decode([]byte(`{"amount": 1} {}`))
	fmt.Println(err != nil)
	// Output:
	// map[amount:10.50] <nil>
	// true
}

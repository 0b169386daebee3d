package jsonschemav5_test

import (
	"fmt"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
)

func ExampleWithMaxDepth() {
	sch, err := jsonschemav5.Compile([]byte(`{"type": "object"}`), jsonschemav5.WithMaxDepth(3))
	if err != nil {
		panic(err)
	}
	fmt.Println(sch.ValidateJSON([]byte(`{"a": [[1]]}`)))
	// Refused from its bytes, before decoding or validating it.
	for _, is := range sch.ValidateJSON([]byte(`{"a": [[[1]]]}`)) {
		fmt.Println(is.Path, is.Code, is.Origin, is.Maximum)
	}
	// Output:
	// no issues
	// a[0][0] too_big depth 3
}

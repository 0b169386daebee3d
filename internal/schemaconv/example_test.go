package schemaconv_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/jsonvalue"

	"github.com/selfheal/selfheal/internal/schemaconv"
)

// Example turns a JSON Schema instance location into the path a model reads
// and the value sent there.
func Example() {
	instance, _ := jsonvalue.Decode([]byte(`{"items": [{"sku": "A-1"}, {"sku": 7}], "labels": {"a.b": "x"}}`))
	for _, loc := range [][]string{{"items", "1", "sku"}, {"labels", "a.b"}} {
		path, v := schemaconv.Locate(instance, nil, loc)
		fmt.Println(path, v)
	}
	// Output:
	// items[1].sku 7
	// labels["a.b"] x
}

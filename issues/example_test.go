package issues_test

import (
	"encoding/json"
	"fmt"

	"github.com/selfheal/selfheal/issues"
)

func Example() {
	list := issues.List{
		{Code: issues.TooSmall, Path: issues.Path{"items", 0, "qty"}, Input: 0, Origin: issues.OriginNumber, Minimum: "1", Inclusive: true},
		{Code: issues.InvalidType, Path: issues.Path{"labels", "a.b"}, Absent: true, Expected: "string"},
	}
	for _, is := range list {
		fmt.Println(is.Path, is.Code)
	}
	out, _ := json.Marshal(list[0])
	fmt.Println(string(out))
	// Output:
	// items[0].qty too_small
	// labels["a.b"] invalid_type
	// {"code":"too_small","path":["items",0,"qty"],"input":0,"origin":"number","minimum":1,"inclusive":true}
}

package issues_test

import (
	"encoding/json"
	"fmt"

	"github.com/selfheal/selfheal/issues"
)

func Example() {
	list := issues.List{
		{Code: issues.TooSmall, Path: issues.Path{"items", 0, "qty"}, Input: 0, Origin: issues.OriginNumber, Minimum: "1", Inclusive: true},
		{Code: issues.InvalidType, Path: issues.Path{"labels", "a.b"}, Absent: true, Expected: issues.TypeString},
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

// Expected types keep the order they are listed in: the formatter words
// them so ("null or an integer"), and the JSON form joins them with "|".
func ExampleTypes() {
	is := issues.Issue{Code: issues.InvalidType, Path: issues.Path{"limit"}, Input: "ten",
		Expected: issues.TypeNull.Or(issues.TypeInteger)}
	fmt.Println(is.Expected, is.Expected.Has(issues.TypeNull))
	for t := range is.Expected.All() {
		fmt.Println(t)
	}
	out, _ := json.Marshal(is)
	fmt.Println(string(out))
	var back issues.Issue
	_ = json.Unmarshal(out, &back)
	fmt.Println(back.Expected == is.Expected)
	// Output:
	// null|integer true
	// null
	// integer
	// {"code":"invalid_type","path":["limit"],"input":"ten","expected":"null|integer"}
	// true
}

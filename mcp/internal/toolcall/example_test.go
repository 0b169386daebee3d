package toolcall_test

import (
	"encoding/json"

	"fmt"
	"github.com/selfheal/selfheal"

	"github.com/selfheal/selfheal/issues"
	"github.com/selfheal/selfheal/mcp/internal/toolcall"
)

// Example shows the structured form both integrations send beside the
// text: sorted, and without the values sent, so a redacted secret cannot
// leak through it.
func Example() {
	list := issues.List{
		{Code: issues.TooSmall, Path: issues.Path{"password"}, Input: "hunter2", Origin: issues.OriginString, Minimum: "12", Inclusive: true},
		{Code: issues.InvalidType, Path: issues.Path{"email"}, Absent: true, Expected: issues.TypeString},
	}
	_, sc := toolcall.Answer(selfheal.New(), "users.create", list, nil)
	out, _ := json.Marshal(sc)
	fmt.Println(string(out))
	// Output:
	// {"issues":[{"code":"invalid_type","path":["email"],"expected":"string"},{"code":"too_small","path":["password"],"origin":"string","minimum":12,"inclusive":true}]}
}

package selfheal_test

import (
	"fmt"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/issues"
)

func Example() {
	engine := selfheal.New(selfheal.WithExamples(false))
	err := issues.List{{Code: issues.InvalidFormat, Path: issues.Path{"id"}, Input: "not-an-email", Format: "email"}}
	fmt.Println(engine.Format("billing.get_invoice", err))
	// Output:
	// <validation_error action="billing.get_invoice">
	//   <field name="id">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

func ExampleEngine_Locale() {
	engine := selfheal.New()
	err := issues.List{{Code: issues.TooSmall, Path: issues.Path{"name"}, Input: "ab", Origin: issues.OriginString, Minimum: "3", Inclusive: true}}
	// A server answers each client in the language it declared.
	fmt.Println(engine.Locale("ja-JP").Format("users.create", err))
	// Output:
	// <validation_error action="users.create">
	//   <field name="name">送信値: 'ab'（2文字）。期待: 3文字以上。</field>
	//   <recovery>上のフィールドを修正して、もう一度ツールを呼び出してください。エラーの説明はしないでください。</recovery>
	// </validation_error>
}

// Result gives, beside the envelope, the issues as its text shows them, to
// send as structured content: in the text's order, within its budgets,
// without the values sent. ServerMessage quotes what a server said on one
// line.
func ExampleEngine_Result() {
	engine := selfheal.New(selfheal.WithMaxIssues(1))
	err := issues.List{
		{Code: issues.InvalidType, Path: issues.Path{"b"}, Expected: issues.TypeString, Input: 1},
		{Code: issues.InvalidType, Path: issues.Path{"a"}, Expected: issues.TypeString, Input: 2},
	}
	_, shown := engine.Result("write_file", err)
	fmt.Println(len(shown), shown[0].Path, shown[0].Input)
	fmt.Println(engine.ServerMessage("Invalid arguments:\n  path: expected string"))
	// Output:
	// 1 a <nil>
	// Invalid arguments:\n  path: expected string
}

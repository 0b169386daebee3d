package gosdk_test

import (
	"context"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/mcp/gosdk"
)

type CreateUser struct {
	Name  string `json:"name" jsonschema:"the user's full name"`
	Email string `json:"email"`
	Age   int    `json:"age"`
}

type Created struct {
	ID string `json:"id"`
}

// The one line that changes from go-sdk: gosdk.AddTool instead of
// mcp.AddTool. A call with bad arguments gets every problem, and the handler
// does not run.
func Example() {
	server := mcp.NewServer(&mcp.Implementation{Name: "users", Version: "1.0.0"}, nil)
	gosdk.AddTool(server, &mcp.Tool{Name: "users.create", Description: "Create a user."},
		func(ctx context.Context, req *mcp.CallToolRequest, in CreateUser) (*mcp.CallToolResult, Created, error) {
			if in.Email == "taken@example.com" {
				return nil, Created{}, envelope.Error(envelope.Conflict, "A user with that email already exists")
			}
			return nil, Created{ID: "usr_1"}, nil
		})

	// A client, over an in-memory transport.
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	for _, args := range []any{
		map[string]any{"name": 42, "age": "36", "emial": "ada@example.com"},
		map[string]any{"name": "Ada", "email": "taken@example.com", "age": 36},
	} {
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "users.create", Arguments: args})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println("isError:", res.IsError)
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	}
	// Output:
	// isError: true
	// <validation_error action="users.create">
	//   <field name="age">You sent: '36'. Expected an integer: 36.</field>
	//   <field name="email">Missing. You sent: the unknown key 'emial'. Expected a string.</field>
	//   <field name="name">You sent: 42. Expected a string.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
	// isError: true
	// <tool_error code="CONFLICT" severity="error">
	//   <message>A user with that email already exists</message>
	// </tool_error>
}

// Servers that keep mcp.AddTool add the middleware: go-sdk's first-error
// string becomes the full validation_error.
func ExampleMiddleware() {
	server := mcp.NewServer(&mcp.Implementation{Name: "users", Version: "1.0.0"}, nil)
	server.AddReceivingMiddleware(gosdk.Middleware())
	mcp.AddTool(server, &mcp.Tool{Name: "users.create"},
		func(ctx context.Context, req *mcp.CallToolRequest, in CreateUser) (*mcp.CallToolResult, Created, error) {
			return nil, Created{ID: "usr_1"}, nil
		})

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	session, err := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1.0.0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "users.create",
		Arguments: map[string]any{"name": "Ada", "age": 36.5}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// <validation_error action="users.create">
	//   <field name="age">You sent: 36.5. Expected an integer.</field>
	//   <field name="email">You sent: nothing. Expected a string.</field>
	//   <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
	// </validation_error>
}

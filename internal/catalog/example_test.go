package catalog_test

import (
	"fmt"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/templates"
)

func Example() {
	ja := catalog.Match("ja-JP")
	fmt.Println(ja.Tag(), ja.Form(1) == templates.Other) // Japanese has no singular
	c, err := catalog.Parse("en", []byte(`{"custom": {"one": "{count} thing", "other": "{count} things"}}`))
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Message("custom", "", "") != nil, c.Form(1) == templates.One)
	// Output:
	// ja true
	// true true
}

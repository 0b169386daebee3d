package main

import (
	libv5 "github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/issues"
)

var v5Drafts = map[string]*libv5.Draft{
	"2020": libv5.Draft2020,
	"2019": libv5.Draft2019,
	"7":    libv5.Draft7,
	"6":    libv5.Draft6,
	"4":    libv5.Draft4,
}

// checkV5 validates with santhosh-tekuri/jsonschema/v5, for servers that
// still run it: the issues are the same as v6's for the same failure.
func checkV5(schema []byte, draft string, instance any) (issues.List, error) {
	sch, err := jsonschemav5.Compile(schema, jsonschemav5.WithCompiler(func(c *libv5.Compiler) { c.Draft = v5Drafts[draft] }))
	if err != nil {
		return nil, err
	}
	return sch.Validate(instance), nil
}

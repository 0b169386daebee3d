module github.com/selfheal/selfheal

go 1.26.0

require (
	github.com/santhosh-tekuri/jsonschema/v5 v5.3.1
	github.com/santhosh-tekuri/jsonschema/v6 v6.0.3
	golang.org/x/text v0.44.0
)

package jsonschemav6_test

import (
	"bytes"
	"flag"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

var record = flag.Bool("record", false, "write the conformance summary to ../testdata/conformance.v6.txt")

// remote loads the suite's remotes for the compiler.
type remote struct{}

func (remote) Load(url string) (any, error) {
	data, err := jsonschematest.Remote(url)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(data))
}

func compileSuite(schema []byte, cfg jsonschematest.Config) (jsonschematest.Validator, error) {
	s, err := compileSuiteSchema(schema, cfg)
	if err != nil {
		return nil, err
	}
	return func(v any) issues.List { return s.Validate(v) }, nil
}

// compileSuiteSchema compiles a schema of the suite as its cfg says.
func compileSuiteSchema(schema []byte, cfg jsonschematest.Config) (*jsonschemav6.Schema, error) {
	draft := jsonschema.Draft2020
	if cfg.Draft == "7" {
		draft = jsonschema.Draft7
	}
	return jsonschemav6.Compile(schema,
		jsonschemav6.WithCompiler(func(c *jsonschema.Compiler) {
			c.DefaultDraft(draft)
			if cfg.Content {
				c.AssertContent()
			}
		}),
		jsonschemav6.WithFormatAssertion(cfg.Formats),
		jsonschemav6.WithLoader(remote{}))
}

// knownV6 lists the suite's cases this adapter fails, with the reason.
var knownV6 = map[string]string{}

func TestSuite(t *testing.T) {
	jsonschematest.Conformance(t, "jsonschemav6 (santhosh-tekuri/jsonschema v6.0.3)", compileSuite, knownV6, *record, "../testdata/conformance.v6.txt")
}

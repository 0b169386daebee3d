package jsonschemav5_test

import (
	"bytes"
	"flag"
	"io"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
	"github.com/selfheal/selfheal/issues"
)

var record = flag.Bool("record", false, "write the conformance summary to ../testdata/conformance.v5.txt")

// remote loads the suite's remotes for the compiler.
func remote(url string) (io.ReadCloser, error) {
	data, err := jsonschematest.Remote(url)
	if err != nil {
		return nil, err
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}

func compileSuite(schema []byte, cfg jsonschematest.Config) (jsonschematest.Validator, error) {
	draft := jsonschema.Draft2020
	if cfg.Draft == "7" {
		draft = jsonschema.Draft7
	}
	s, err := jsonschemav5.Compile(schema,
		jsonschemav5.WithCompiler(func(c *jsonschema.Compiler) {
			c.Draft = draft
			c.AssertContent = cfg.Content
		}),
		jsonschemav5.WithFormatAssertion(cfg.Formats),
		jsonschemav5.WithLoader(remote))
	if err != nil {
		return nil, err
	}
	return func(v any) issues.List { return s.Validate(v) }, nil
}

// knownV5 lists the suite's cases this adapter fails, with the reason.
var knownV5 = map[string]string{}

func TestSuite(t *testing.T) {
	jsonschematest.Conformance(t, "jsonschemav5 (santhosh-tekuri/jsonschema v5.3.1)", compileSuite, knownV5, *record, "../testdata/conformance.v5.txt")
}

func TestTable(t *testing.T) {
	jsonschematest.RunTable(t, "2020-12", jsonschematest.Table, compileSuite)
}

func TestTableDraft7(t *testing.T) {
	jsonschematest.RunTable(t, "7", jsonschematest.Draft7Table, compileSuite)
}

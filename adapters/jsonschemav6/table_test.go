package jsonschemav6_test

import (
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
)

func TestTable(t *testing.T) {
	jsonschematest.RunTable(t, "2020-12", jsonschematest.Table, compileSuite)
}

func TestTableDraft7(t *testing.T) {
	jsonschematest.RunTable(t, "7", jsonschematest.Draft7Table, compileSuite)
}

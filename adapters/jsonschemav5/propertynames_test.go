package jsonschemav5_test

import (
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/jsonschematest"
)

func TestPropertyNamesPath(t *testing.T) {
	jsonschematest.PropertyNamesPath(t, compile)
}

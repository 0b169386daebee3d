package jsonschemav5

import (
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// relay converts ve and its causes when neither the instance nor the
// schema is at hand: each failure is a custom issue with the library's own
// message, at the path its instance location names; anyOf and oneOf are
// unions of their alternatives' failures, so that the formatter shows the
// closest alternative as it does for every union.
func relay(k *schema.Sink, ve *jsonschema.ValidationError) {
	kw := ve.KeywordLocation[strings.LastIndexByte(ve.KeywordLocation, '/')+1:]
	path := schema.GuessPath(pointer(ve.InstanceLocation))
	switch {
	case (kw == "anyOf" || kw == "oneOf") && len(ve.Causes) > 0:
		branches := make([][]issues.Issue, 0, len(ve.Causes))
		for _, cause := range ve.Causes {
			var bk schema.Sink
			relay(&bk, cause)
			branches = append(branches, bk.Finish())
		}
		k.Add(issues.InvalidUnion, path, issues.Unknown{}, "jsonschema:"+kw).Branches = branches
	case len(ve.Causes) > 0:
		for _, cause := range ve.Causes {
			relay(k, cause)
		}
	default:
		k.Add(issues.Custom, path, issues.Unknown{}, "jsonschema:"+kw).Message = ve.Message
	}
}

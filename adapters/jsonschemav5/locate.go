package jsonschemav5

import (
	"math/big"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// split finds the compiled schema an absolute keyword location belongs to
// and the keyword path after it.
func (s *Schema) split(loc string) (*jsonschema.Schema, []string) {
	if s == nil {
		toks := schema.Fragment(loc)
		if len(toks) > 0 {
			return nil, toks[len(toks)-1:]
		}
		return nil, nil
	}
	var kw []string
	cur := loc
	for range 64 {
		if sch, ok := s.locs[cur]; ok {
			return sch, kw
		}
		if sch, ok := s.locs[unescapeFrag(cur)]; ok {
			return sch, kw
		}
		i := strings.LastIndexByte(cur, '/')
		if i < 0 || i < strings.IndexByte(cur, '#') {
			break
		}
		tok := cur[i+1:]
		tok = strings.ReplaceAll(strings.ReplaceAll(unescapeFrag(tok), "~1", "/"), "~0", "~")
		kw = append([]string{tok}, kw...)
		cur = cur[:i]
	}
	return nil, kw
}

// hasKeyword reports whether the document of sch writes keyword kw (true
// when the document is unknown and kw is not a default).
func (s *Schema) hasKeyword(sch *jsonschema.Schema, kw string) bool {
	if s != nil {
		if obj := s.docs.Object(sch.Location); obj != nil {
			_, has := obj[kw]
			return has
		}
	}
	return kw != "minContains" || sch.MinContains != 1
}

// literal returns the number keyword kw of the schema at loc as the document
// wrote it, or else the library's exact value written plainly.
func (s *Schema) literal(loc, kw string, r *big.Rat) issues.Number {
	if s == nil {
		return schema.RatText(r)
	}
	return schema.Literal(s.docs.Object(loc), kw, r)
}

package jsonschemav5

import (
	"encoding/base64"
	"encoding/json"
	"net/url"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schema"
	"github.com/selfheal/selfheal/issues"
)

// sink collects one list of issues, merging what version 5 reports piece by
// piece: unrecognized keys and excess items into one issue per object or
// array (schema.Sink), the failures of one property name into one
// invalid_key, the failures inside one string's content into one content
// issue. Like schema.Sink it builds at most 1,000 issues;
// the inner issues of each key or content are a list of their own, capped
// the same way.
type sink struct {
	schema.Sink
	nested  map[string]*nest // object location + name, or string location → inner issues of a key or content
	ordered []*nest
	// skippedNest is the last nest counted rather than built: the
	// failures of one name or content come one after another, and would
	// have made one issue.
	skippedNest string
}

type nest struct {
	pos     int
	path    issues.Path
	input   any
	name    string
	content bool
	inner   sink
}

// nestOf returns the sink of the inner issues of the nest id, nil when there
// is none yet.
func (k *sink) nestOf(id string) *sink {
	if n, ok := k.nested[id]; ok {
		return &n.inner
	}
	return nil
}

// newNest adds the nest n under id, holding a place in Out for its issue,
// and returns the sink of its inner issues. The caller asks Room first.
func (k *sink) newNest(id string, n *nest) *sink {
	if k.nested == nil {
		k.nested = map[string]*nest{}
	}
	n.pos = k.Reserve()
	k.nested[id] = n
	k.ordered = append(k.ordered, n)
	return &n.inner
}

// skipNest counts the issue of the nest id as not built, once for the
// failures of one nest that come together.
func (k *sink) skipNest(id string) {
	if id != k.skippedNest {
		k.skippedNest = id
		k.Skip(1)
	}
}

func (k *sink) finish() issues.List {
	for _, n := range k.ordered {
		inner := n.inner.finish()
		switch {
		case n.content:
			k.Out[n.pos] = issues.Issue{Code: issues.Custom, Check: issues.CheckContent, Path: n.path,
				Input: n.input, Issues: inner, Source: "jsonschema:contentSchema"}
		case len(inner) == 1 && inner[0].Check == issues.CheckNever && len(inner[0].Path) == 0:
			// No name is allowed: an unrecognized key, which joins its
			// object's issue, if any, in place of the placeholder.
			k.Release(n.pos)
			k.Unrecognized(n.path, n.input, n.name, nil, "jsonschema:propertyNames")
		default:
			k.Out[n.pos] = issues.Issue{Code: issues.InvalidKey, Path: n.path, Input: n.name, Key: n.name,
				Origin: issues.OriginObject, Issues: inner, Source: "jsonschema:propertyNames"}
		}
	}
	return k.Sink.Finish()
}

// decodeContent decodes the content of a string the way contentEncoding
// describes it, for locating the issues inside it.
func decodeContent(v any, sch *jsonschema.Schema) any {
	str, ok := v.(string)
	if !ok {
		return nil
	}
	data := []byte(str)
	if (sch != nil && sch.ContentEncoding == "base64") || (sch == nil && !json.Valid(data)) {
		if d, err := base64.StdEncoding.DecodeString(str); err == nil {
			data = d
		}
	}
	return schema.DecodeContent(data)
}

// unescapeFrag percent-decodes a fragment.
func unescapeFrag(f string) string {
	if u, err := url.PathUnescape(f); err == nil {
		return u
	}
	return f
}

package jsonschemav5

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"

	"github.com/santhosh-tekuri/jsonschema/v5"

	"github.com/selfheal/selfheal/adapters/internal/schemaconv"
	"github.com/selfheal/selfheal/issues"
)

// sink collects one list of issues, merging what version 5 reports piece by
// piece: unrecognized keys and excess items into one issue per object or
// array (schemaconv.Sink), the failures of one property name into one
// invalid_key, the failures inside one string's content into one content
// issue.
type sink struct {
	schemaconv.Sink
	nested  map[string]*nest // path (+ name) → inner issues of a key or content
	ordered []*nest
}

type nest struct {
	pos     int
	path    issues.Path
	input   any
	name    string
	content bool
	inner   sink
}

func (k *sink) nestSink(id string, n *nest) *sink {
	if old, ok := k.nested[id]; ok {
		return &old.inner
	}
	if k.nested == nil {
		k.nested = map[string]*nest{}
	}
	n.pos = len(k.Out)
	k.Out = append(k.Out, issues.Issue{})
	k.nested[id] = n
	k.ordered = append(k.ordered, n)
	return &n.inner
}

// keySink returns the sink of the issues of property name name of the
// object at path.
func (k *sink) keySink(path issues.Path, obj any, name string) *sink {
	return k.nestSink("k"+path.String()+"\x00"+name, &nest{path: path, input: obj, name: name})
}

// contentSink returns the sink of the issues inside the string at path.
func (k *sink) contentSink(path issues.Path, str any) *sink {
	return k.nestSink("c"+path.String(), &nest{path: path, input: str, content: true})
}

func (k *sink) finish() issues.List {
	for _, n := range k.ordered {
		inner := n.inner.finish()
		switch {
		case n.content:
			k.Out[n.pos] = issues.Issue{Code: issues.Custom, Check: issues.CheckContent, Path: n.path,
				Input: n.input, Issues: inner, Source: "jsonschema:contentSchema"}
		case len(inner) == 1 && inner[0].Check == issues.CheckNever && len(inner[0].Path) == 0:
			k.Unrecognized(n.path, n.input, n.name, nil, "jsonschema:propertyNames")
		default:
			k.Out[n.pos] = issues.Issue{Code: issues.InvalidKey, Path: n.path, Input: n.name, Key: n.name,
				Origin: issues.OriginObject, Issues: inner, Source: "jsonschema:propertyNames"}
		}
	}
	return k.Sink.Finish()
}

func numText(v any) string {
	if n, ok := v.(json.Number); ok {
		return string(n)
	}
	return fmt.Sprint(v)
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
	return schemaconv.DecodeContent(data)
}

// unescapeFrag percent-decodes a fragment.
func unescapeFrag(f string) string {
	if u, err := url.PathUnescape(f); err == nil {
		return u
	}
	return f
}

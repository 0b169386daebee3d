package proxy

import (
	"encoding/json"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// defaulted is the set of a schema's required properties with a default, by
// path. Zod's toJSONSchema (output mode, as @playwright/mcp uses) lists such
// a field as required though the server fills it in: "missing" would be
// false for it.
type defaulted map[string]bool

// maxDefaultedDepth bounds the walk through a schema's nested properties.
const maxDefaultedDepth = 64

// defaultedOf reads the required properties with a default of a tool's
// input schema, nested objects and array items included; nil for none.
func defaultedOf(schema json.RawMessage) defaulted {
	var root map[string]any
	if json.Unmarshal(schema, &root) != nil {
		return nil
	}
	var d defaulted
	var walk func(node map[string]any, path []string, depth int)
	walk = func(node map[string]any, path []string, depth int) {
		if depth > maxDefaultedDepth {
			return
		}
		props, _ := node["properties"].(map[string]any)
		required, _ := node["required"].([]any)
		for _, r := range required {
			name, _ := r.(string)
			if p, ok := props[name].(map[string]any); ok {
				if _, has := p["default"]; has {
					if d == nil {
						d = defaulted{}
					}
					d[defaultedKey(append(path, name))] = true
				}
			}
		}
		for name, p := range props {
			if p, ok := p.(map[string]any); ok {
				walk(p, append(path[:len(path):len(path)], name), depth+1)
			}
		}
		if items, ok := node["items"].(map[string]any); ok {
			walk(items, append(path[:len(path):len(path)], ""), depth+1)
		}
	}
	walk(root, nil, 0)
	return d
}

// defaultedKey joins a path's keys; an array index is "" (any index).
func defaultedKey(path []string) string {
	return strings.Join(path, "\x00")
}

// pathKey is defaultedKey for an issue's path.
func pathKey(p issues.Path) string {
	keys := make([]string, len(p))
	for i, e := range p {
		keys[i], _ = e.(string) // an index is ""
	}
	return defaultedKey(keys)
}

// drop returns list without missing-field issues for defaulted properties.
func (d defaulted) drop(list issues.List) issues.List {
	if len(d) == 0 {
		return list
	}
	kept := list[:0:0]
	for i := range list {
		is := &list[i]
		if is.Code == issues.InvalidType && is.Absent && d[pathKey(is.Path)] {
			continue
		}
		kept = append(kept, *is)
	}
	if len(kept) == len(list) {
		return list
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

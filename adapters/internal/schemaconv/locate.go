package schemaconv

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// Locate returns the path and the value at the instance location toks
// (unescaped JSON pointer tokens) below base, whose own path is prefix. An
// index into an array is an int element of the path when it names an item,
// and a token that leads nowhere keeps its text with a nil value.
func Locate(base any, prefix issues.Path, toks []string) (issues.Path, any) {
	p := make(issues.Path, 0, len(prefix)+len(toks))
	p = append(p, prefix...)
	v := base
	for _, tok := range toks {
		switch x := v.(type) {
		case []any:
			i, err := strconv.Atoi(tok)
			if err == nil && i >= 0 && i < len(x) {
				p = append(p, i)
				v = x[i]
				continue
			}
			p = append(p, tok)
			v = nil
		case map[string]any:
			p = append(p, tok)
			v = x[tok]
		default:
			p = append(p, tok)
			v = nil
		}
	}
	return p, v
}

// Fragment returns the JSON pointer tokens of a location's fragment
// (percent-decoded, then split and unescaped), nil when it has none.
func Fragment(loc string) []string {
	_, frag, ok := strings.Cut(loc, "#")
	if !ok || frag == "" {
		return nil
	}
	return fragmentTokens(frag)
}

func fragmentTokens(frag string) []string {
	if f, err := url.PathUnescape(frag); err == nil {
		frag = f
	}
	toks := strings.Split(strings.TrimPrefix(frag, "/"), "/")
	for i, t := range toks {
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks
}

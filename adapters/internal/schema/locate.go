package schema

import (
	"net/url"
	"strconv"
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// Locate returns the path and the value at the instance location toks
// (unescaped JSON pointer tokens) below base. An index into an array is an
// int element of the path when it names an item, and a token that leads
// nowhere keeps its text with a nil value.
func Locate(base any, toks []string) (issues.Path, any) {
	p := make(issues.Path, 0, len(toks))
	v := base
	for _, tok := range toks {
		switch x := v.(type) {
		case []any:
			if n, err := strconv.Atoi(tok); err == nil && n >= 0 && n < len(x) {
				p, v = append(p, n), x[n]
				continue
			}
			v = nil
		case map[string]any:
			v = x[tok]
		default:
			v = nil
		}
		p = append(p, tok)
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

// GuessPath is the path of the instance location toks when the instance is
// not at hand to tell keys from indexes: tokens that are indexes in form
// are taken for indexes, which they are far more often than keys.
func GuessPath(toks []string) issues.Path {
	p := make(issues.Path, len(toks))
	for i, tok := range toks {
		p[i] = tok
		if n, err := strconv.Atoi(tok); err == nil && n >= 0 && strconv.Itoa(n) == tok {
			p[i] = n
		}
	}
	return p
}

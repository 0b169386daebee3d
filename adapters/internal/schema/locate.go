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
//
// at is where the schema expects the location, when it knows that without
// the instance (see an adapter's Compile), or nil: a nil element stands for
// a key or index only the instance knows. Elements of the path that agree
// with at are at's own, already boxed, and a path that is at (or a prefix
// of it) is at itself, so that a warm conversion boxes nothing the schema
// names and the formatter sees the same slice every time. The path is
// read-only: it may be shared.
func Locate(base any, at issues.Path, toks []string) (issues.Path, any) {
	var p issues.Path // nil while the path agrees with at
	v := base
	for i, tok := range toks {
		idx := -1
		switch x := v.(type) {
		case []any:
			n, err := strconv.Atoi(tok)
			if err == nil && n >= 0 && n < len(x) {
				idx, v = n, x[n]
			} else {
				v = nil
			}
		case map[string]any:
			v = x[tok]
		default:
			v = nil
		}
		agrees := i < len(at) && sameElem(at[i], idx, tok)
		switch {
		case p == nil && agrees:
			continue
		case p == nil:
			p = make(issues.Path, i, len(toks))
			copy(p, at)
		}
		switch {
		case agrees:
			p = append(p, at[i])
		case idx >= 0:
			p = append(p, idx)
		default:
			p = append(p, tok)
		}
	}
	if p != nil {
		return p, v
	}
	if at == nil {
		return issues.Path{}, v
	}
	return at[:len(toks):len(toks)], v
}

// sameElem reports whether the path element el is the index idx (when not
// negative) or else the key tok.
func sameElem(el any, idx int, tok string) bool {
	if idx >= 0 {
		n, ok := el.(int)
		return ok && n == idx
	}
	s, ok := el.(string)
	return ok && s == tok
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

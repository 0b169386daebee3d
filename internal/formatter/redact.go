package formatter

import (
	"strings"

	"github.com/selfheal/selfheal/issues"
)

// defaultRedact are the field names whose values are never echoed. They are
// matched as whole words anywhere in a key (apiKey, X-Api-Key, access_token,
// user.password), so max_size or author do not trip them, and a final
// plural "s" is allowed (cookies).
var defaultRedact = []string{
	"password", "passwd", "pwd", "secret", "token", "api_key", "apikey", "authorization",
	"cookie", "session", "private_key", "card_number", "cardnumber", "cvv", "cvc", "ssn",
	"credential",
}

// DefaultRedact returns the default list of sensitive field names. The root
// package's WithRedact documents the list: keep the two in step (a test in
// the root package checks it).
func DefaultRedact() []string { return append([]string(nil), defaultRedact...) }

// redactor matches keys against names split into lower-case words,
// indexed by their first word.
type redactor struct {
	first map[string][][]string
}

func newRedactor(names []string) *redactor {
	r := &redactor{first: make(map[string][][]string)}
	for _, n := range names {
		var words []string
		forWords(n, func(w string) bool {
			words = append(words, strings.ToLower(w))
			return true
		})
		if len(words) > 0 {
			r.first[words[0]] = append(r.first[words[0]], words)
		}
	}
	return r
}

// path reports whether any key of the path is sensitive.
func (r *redactor) path(p issues.Path) bool {
	for _, el := range p {
		if k, ok := el.(string); ok && r.matches(k) {
			return true
		}
	}
	return false
}

// matches reports whether key contains one of the names as a run of whole
// words, ignoring case, the last word possibly plural. It allocates nothing.
func (r *redactor) matches(key string) bool {
	if r == nil || len(r.first) == 0 {
		return false
	}
	if oneWord(key) {
		// Most keys are one lower-case word (name, email): splitting them
		// into words took a tenth of the validator pair's (c) (DESIGN 5).
		return r.matchFrom([]string{key})
	}
	var buf [16]string
	words := buf[:0]
	forWords(key, func(w string) bool {
		words = append(words, w)
		return len(words) < len(buf)
	})
	for i := range words {
		if r.matchFrom(words[i:]) {
			return true
		}
	}
	return false
}

// matchFrom reports whether one of the names matches words from their
// first word on.
func (r *redactor) matchFrom(words []string) bool {
	w := words[0]
	var low [32]byte // the word in lower case, built without allocating
	if len(w) >= len(low) {
		return false // words this long are not matched
	}
	for j := 0; j < len(w); j++ {
		low[j] = lower(w[j])
	}
	for _, name := range r.first[string(low[:len(w)])] {
		if wordsMatch(words[1:], name[1:]) {
			return true
		}
	}
	// A plural single-word name: cookies, tokens, secrets.
	if n := len(w); n > 1 && low[n-1] == 's' {
		for _, name := range r.first[string(low[:n-1])] {
			if len(name) == 1 {
				return true
			}
		}
	}
	return false
}

// wordsMatch reports whether words starts with name, ignoring case, the
// last word of name possibly plural.
func wordsMatch(words, name []string) bool {
	if len(words) < len(name) {
		return false
	}
	for j, nw := range name {
		w := words[j]
		if strings.EqualFold(w, nw) {
			continue
		}
		if j == len(name)-1 && len(w) == len(nw)+1 && lower(w[len(w)-1]) == 's' && strings.EqualFold(w[:len(nw)], nw) {
			continue
		}
		return false
	}
	return true
}

// forWords calls f for each word of s: runs of letters and digits, split
// also where camelCase changes case (apiKey → api, Key; APIKey → API, Key).
func forWords(s string, f func(string) bool) {
	start := -1
	for i := 0; i <= len(s); i++ {
		var c byte
		if i < len(s) {
			c = s[i]
		}
		alnum := isLower(c) || isUpper(c) || (c >= '0' && c <= '9') || c >= 0x80
		if start >= 0 && (!alnum || (i > start && isUpper(c) &&
			(isLower(s[i-1]) || (i+1 < len(s) && isUpper(s[i-1]) && isLower(s[i+1]))))) {
			if !f(s[start:i]) {
				return
			}
			start = -1
		}
		if alnum && start < 0 {
			start = i
		}
	}
}

func lower(c byte) byte {
	if isUpper(c) {
		return c + 'a' - 'A'
	}
	return c
}

// oneWord reports whether s is lower-case ASCII letters and digits only,
// which forWords would not split.
func oneWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLower(c) && (c < '0' || c > '9') {
			return false
		}
	}
	return s != ""
}

func isLower(c byte) bool { return c >= 'a' && c <= 'z' }
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

package sessions

import (
	"cmp"
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/selfheal/selfheal/mcp/proxy/internal/wire"
)

// Revision 2026-07-28 lets a tool mirror arguments into HTTP headers
// (SEP-2243): a property marked "x-mcp-header": "Name" is sent again as
// Mcp-Param-Name, so that a gateway can route without reading the body.
// The server must check that header and body agree, else gateway and tool
// could act on different values; in command mode the proxy is the server's
// transport, so it checks them as the TypeScript SDK v2's createMcpHandler
// does (core-internal/src/shared/mcpParamHeaders.ts).

const (
	paramHeaderPrefix = "Mcp-Param-"
	// maxParamTools bounds the tools whose declarations are kept; past it
	// a listing is not complete, and a call of a tool not kept lists again.
	maxParamTools = 1000
	// notifyToolsChanged makes the proxy forget the declarations.
	notifyToolsChanged = "notifications/tools/list_changed"
)

// paramDecl is one x-mcp-header declaration: the argument's path through
// the properties, the header's name after its prefix, and the property's
// type, which says how the two compare.
type paramDecl struct {
	path []string
	name string
	typ  string
}

// unreachableKeywords stop the chain of "properties": a declaration under
// one makes the whole tool's declarations invalid, as the SDK rules.
var unreachableKeywords = []string{
	"items", "prefixItems", "contains", "additionalProperties", "unevaluatedProperties",
	"unevaluatedItems", "propertyNames", "patternProperties", "dependentSchemas",
	"oneOf", "anyOf", "allOf", "not", "if", "then", "else", "$defs", "definitions",
}

// mapKeywords are those whose value maps names to schemas.
var mapKeywords = map[string]bool{
	"patternProperties": true, "dependentSchemas": true, "$defs": true, "definitions": true,
}

// scanParamDecls returns the declarations of a tool's inputSchema, none
// when one breaks a rule of the revision (off the chain of properties, at
// the root, a name not an RFC 9110 token, a type other than string, integer
// and boolean, a name given twice regardless of case): a conforming client
// leaves such a tool out. number is the SDK's exception, checked as an
// integer.
func scanParamDecls(schema []byte) []paramDecl {
	var decls []paramDecl
	seen := map[string]bool{}
	var visit func(node []byte, path []string, reachable bool) bool
	visit = func(node []byte, path []string, reachable bool) (ok bool) {
		if !isObject(node) {
			return true
		}
		if raw := member(node, "x-mcp-header"); raw != nil {
			name := wire.Str(raw)
			if !reachable || len(path) == 0 || !wire.IsString(raw) || !isToken(name) {
				return false
			}
			typ := ""
			if t := member(node, "type"); wire.IsString(t) {
				typ = wire.Str(t)
			}
			switch typ {
			case "string", "integer", "boolean":
			case "number": // the SDK's exception: checked as an integer
			default:
				return false
			}
			lower := strings.ToLower(name)
			if seen[lower] {
				return false
			}
			seen[lower] = true
			decls = append(decls, paramDecl{path: path, name: name, typ: typ})
		}
		for _, e := range jsEntries(member(node, "properties")) {
			if !visit(e.value, append(slices.Clip(path), e.name), reachable) {
				return false
			}
		}
		for _, k := range unreachableKeywords {
			sub := member(node, k)
			if sub == nil {
				continue
			}
			var branches [][]byte
			switch {
			case len(sub) > 0 && sub[0] == '[':
				elements(sub, func(v []byte) { branches = append(branches, v) })
			case mapKeywords[k] && isObject(sub):
				for _, e := range jsEntries(sub) {
					branches = append(branches, e.value)
				}
			default:
				branches = [][]byte{sub}
			}
			for _, b := range branches {
				if !visit(b, append(slices.Clip(path), "<"+k+">"), false) {
					return false
				}
			}
		}
		return true
	}
	if !visit(schema, nil, true) {
		return nil
	}
	return decls
}

// isToken reports whether s is an RFC 9110 token.
func isToken(s string) bool {
	return s != "" && strings.Trim(s, "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// entry is a member of a JSON object as JavaScript reads it.
type entry struct {
	name  string
	value []byte
}

// jsEntries returns the members of a JSON object (an array's elements
// named by index) in the order of JavaScript's Object.entries after
// JSON.parse, since the SDK answers the first declaration that fails:
// array-index names first, ascending, then the others as written; a
// duplicate once, where it first came, with its last value.
func jsEntries(raw []byte) []entry {
	var out []entry
	if len(raw) > 0 && raw[0] == '[' {
		elements(raw, func(v []byte) { out = append(out, entry{strconv.Itoa(len(out)), v}) })
		return out
	}
	members, _, ok := spans(raw)
	if !ok {
		return nil
	}
	at := map[string]int{}
	for _, m := range members {
		if i, dup := at[m.name]; dup {
			out[i].value = raw[m.value:m.end]
			continue
		}
		at[m.name] = len(out)
		out = append(out, entry{m.name, raw[m.value:m.end]})
	}
	slices.SortStableFunc(out, func(a, b entry) int {
		ia, aok := arrayIndex(a.name)
		ib, bok := arrayIndex(b.name)
		switch {
		case aok && bok:
			return int(ia) - int(ib)
		case aok:
			return -1
		case bok:
			return 1
		}
		return 0
	})
	return out
}

// arrayIndex reads a name JavaScript takes for an array index.
func arrayIndex(name string) (int64, bool) {
	if name == "" || len(name) > 10 || (len(name) > 1 && name[0] == '0') {
		return 0, false
	}
	n, err := strconv.ParseInt(name, 10, 64)
	if err != nil || n < 0 || n >= math.MaxUint32 || strconv.FormatInt(n, 10) != name {
		return 0, false
	}
	return n, true
}

// checkParams refuses a tools/call of id whose Mcp-Param headers do not
// mirror its arguments, as the SDK does: each argument given as a string, a
// boolean or a finite number (safe when integral) needs its header,
// decoding to its value, compared as numbers for a numeric type when the
// header is a plain decimal, else as text. Other arguments want no header.
func checkParams(id []byte, decls []paramDecl, args []byte, h http.Header) *refusal {
	for _, d := range decls {
		key := paramHeaderPrefix + d.name
		raw := valueAt(args, d.path)
		text, num, isNum, ok := primitive(raw)
		if !ok {
			continue
		}
		body := strings.Join(d.path, ".") + "=" + jsStringify(raw, text, num, isNum)
		vs := h.Values(key)
		if len(vs) == 0 {
			return mismatch(id, key, "the body carries "+body+" but the "+key+" header is absent")
		}
		decoded, valid := decodeParamValue(strings.Join(vs, ", "))
		if !valid {
			return mismatch(id, key, "the "+key+" header carries an invalid Base64 sentinel value")
		}
		var same bool
		if (d.typ == "integer" || d.typ == "number") && isNum && plainDecimal.MatchString(decoded) {
			f, _ := strconv.ParseFloat(decoded, 64) // out of range is ±Inf, as JavaScript reads it
			same = f == num
		} else {
			same = decoded == text
		}
		if !same {
			return mismatch(id, key, "the "+key+" header decodes to "+jsQuote(decoded)+" but the body carries "+body)
		}
	}
	return nil
}

// valueAt returns the value at path in args, nil when there is none.
func valueAt(args []byte, path []string) []byte {
	node := args
	for _, k := range path {
		if !isObject(node) {
			return nil
		}
		node = member(node, k)
	}
	return node
}

// primitive returns an argument's value as its header carries it, and the
// number for a number; ok is false for a value that wants no header.
func primitive(raw []byte) (text string, num float64, isNum, ok bool) {
	switch {
	case len(raw) == 0, string(raw) == "null", raw[0] == '{', raw[0] == '[':
		return "", 0, false, false
	case wire.IsString(raw):
		return wire.Str(raw), 0, false, true
	case string(raw) == "true", string(raw) == "false":
		return string(raw), 0, false, true
	}
	f, err := strconv.ParseFloat(string(raw), 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) { // too large: ±Inf, as JavaScript reads it
		return "", 0, false, false
	}
	const maxSafe = 1<<53 - 1
	if math.IsInf(f, 0) || (f == math.Trunc(f) && math.Abs(f) > maxSafe) {
		return "", 0, false, false
	}
	return jsNumber(f), f, true, true
}

// plainDecimal matches -?digits(.digits)?, the only form the SDK compares
// as a number.
var plainDecimal = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// decodeParamValue reads an Mcp-Param value as the SDK does: "=?base64?…?="
// is its payload decoded as UTF-8 (valid false when not canonical Base64 or
// not UTF-8); any other is read as Latin-1, as Node's HTTP server reads it.
func decodeParamValue(v string) (decoded string, valid bool) {
	const prefix, suffix = "=?base64?", "?="
	if !strings.HasPrefix(v, prefix) || !strings.HasSuffix(v, suffix) {
		return latin1(v), true
	}
	payload := ""
	if len(v) >= len(prefix)+len(suffix) {
		payload = v[len(prefix) : len(v)-len(suffix)]
	}
	data, err := base64.StdEncoding.DecodeString(payload) // canonical only: a header has no CR or LF to skip
	if err != nil || !utf8.Valid(data) {
		return "", false
	}
	return strings.TrimPrefix(string(data), "\uFEFF"), true // TextDecoder drops a BOM
}

// latin1 returns the string whose characters are the bytes of s.
func latin1(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			var b strings.Builder
			for j := 0; j < len(s); j++ {
				b.WriteRune(rune(s[j]))
			}
			return b.String()
		}
	}
	return s
}

// jsStringify is JSON.stringify of an argument primitive returned.
func jsStringify(raw []byte, text string, num float64, isNum bool) string {
	switch {
	case isNum:
		return jsNumber(num)
	case wire.IsString(raw):
		return jsQuote(text)
	}
	return text
}

// jsQuote is JSON.stringify of a string (<, > and & unescaped).
func jsQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte("0123456789abcdef"[r>>4])
				b.WriteByte("0123456789abcdef"[r&0xf])
			} else {
				b.WriteRune(r)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsNumber is JavaScript's String of a finite number.
func jsNumber(f float64) string {
	if f == 0 {
		return "0"
	}
	if f < 0 {
		return "-" + jsNumber(-f)
	}
	mant, exp, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	digits := strings.Replace(mant, ".", "", 1)
	e, _ := strconv.Atoi(exp)
	k, n := len(digits), e+1
	switch {
	case k <= n && n <= 21:
		return digits + strings.Repeat("0", n-k)
	case 0 < n && n <= 21:
		return digits[:n] + "." + digits[n:]
	case -6 < n && n <= 0:
		return "0." + strings.Repeat("0", -n) + digits
	}
	s := digits[:1]
	if k > 1 {
		s += "." + digits[1:]
	}
	return s + fmt.Sprintf("e%+d", n-1)
}

// paramTools is what the server knows of its tools' declarations, from the
// listings that pass through its pool and its own: one for the whole
// server, since every process runs the same command.
type paramTools struct {
	mu sync.Mutex
	// decls holds the tools that have some, by name.
	decls map[string][]paramDecl
	// complete: every page was learned and nothing changed since, so a tool
	// not in decls has none. gen counts the changes: a listing under way
	// at one does not make what it learned complete.
	complete bool
	gen      uint64
	// listing is closed when the proxy's own listing under way ends.
	listing chan struct{}
}

// learn reads a page of a tools/list result; false when a tool's
// declarations could not be kept.
func (t *paramTools) learn(result []byte) bool {
	kept := true
	t.mu.Lock()
	defer t.mu.Unlock()
	elements(member(result, "tools"), func(tool []byte) {
		name := member(tool, "name")
		if !wire.IsString(name) {
			return
		}
		n := wire.Str(name)
		decls := scanParamDecls(member(tool, "inputSchema"))
		_, known := t.decls[n]
		switch {
		case len(decls) == 0:
			delete(t.decls, n)
		case known || len(t.decls) < maxParamTools:
			if t.decls == nil {
				t.decls = map[string][]paramDecl{}
			}
			t.decls[n] = decls
		default:
			kept = false
		}
	})
	return kept
}

// lookup returns the declarations of a tool, and whether they are known.
func (t *paramTools) lookup(name string) ([]paramDecl, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	decls, ok := t.decls[name]
	return decls, ok || t.complete
}

// forget drops what is known: the server's tools have changed.
func (t *paramTools) forget() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.decls, t.complete = nil, false
	t.gen++
}

// paramHeaders refuses a stateless tools/call whose Mcp-Param headers
// disagree with its arguments. A tool not known is listed on p first; one
// still not known is the server's to answer.
func (c *Server) paramHeaders(r *http.Request, p *session, m posted, version string) *refusal {
	params := member(m.line, "params")
	name := member(params, "name")
	if !wire.IsString(name) {
		return nil
	}
	tool := wire.Str(name)
	decls, known := c.params.lookup(tool)
	if !known {
		decls = c.listParams(r, p, version, tool)
	}
	if len(decls) == 0 {
		return nil
	}
	bad := checkParams(m.id, decls, member(params, "arguments"), r.Header)
	if bad != nil {
		c.r.Logger.Debug("selfheal proxy: a call is refused: its Mcp-Param headers disagree with its arguments", "tool", tool, "mismatch", bad.msg)
	}
	return bad
}

// listParams lists the tools on p in the request's revision, learns their
// declarations and returns the tool's. Calls that come together wait for
// one listing (until r's client goes); a failed listing leaves the tool
// not known.
func (c *Server) listParams(r *http.Request, p *session, version, tool string) []paramDecl {
	t := &c.params
	t.mu.Lock()
	if ch := t.listing; ch != nil {
		t.mu.Unlock()
		select {
		case <-ch:
		case <-r.Context().Done():
		}
		decls, _ := t.lookup(tool)
		return decls
	}
	ch := make(chan struct{})
	t.listing = ch
	gen := t.gen
	t.mu.Unlock()

	p.mu.Lock()
	if p.bridge {
		version = ""
	}
	p.mu.Unlock()
	complete := true
	err := wire.ListPages(func(cursor string) (string, error) {
		m, err := p.ask("tools/list", cmp.Or(wire.ListParams(cursor, version), "{}"))
		if err != nil {
			return "", err
		}
		complete = t.learn(m.Result) && complete // an error's nil: no tools
		return wire.Str(member(m.Result, "nextCursor")), nil
	})
	if err != nil {
		p.c.r.Logger.Warn("selfheal proxy: the tools could not be listed; a call of a tool not listed is forwarded without its Mcp-Param headers checked", "error", err)
		complete = false
	}
	t.mu.Lock()
	t.listing = nil
	if complete && gen == t.gen {
		t.complete = true
	}
	decls := t.decls[tool]
	t.mu.Unlock()
	close(ch)
	return decls
}

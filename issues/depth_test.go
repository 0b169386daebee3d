package issues

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// deepJSON nests n arrays ([[[…]]]) around inner.
func deepJSON(n int, inner string) string {
	return strings.Repeat("[", n) + inner + strings.Repeat("]", n)
}

// deepObjectJSON nests n objects ({"a":{"a":…}}) around inner.
func deepObjectJSON(n int, inner string) string {
	return strings.Repeat(`{"a":`, n) + inner + strings.Repeat("}", n)
}

func decodeExact(t testing.TB, data string) any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %.80q: %v", data, err)
	}
	return v
}

var depthCases = []struct {
	name string
	doc  string
	max  int
	want Path   // nil: within the limit
	typ  string // the type of the container past the limit
}{
	{"scalar", `42`, 1, nil, ""},
	{"string", `"[[[[{{{{"`, 1, nil, ""},
	{"flat object", `{"a":1}`, 1, nil, ""},
	{"empty object at 1", `{}`, 1, nil, ""},
	{"depth 3 at 3", `{"a":{"b":[1]}}`, 3, nil, ""},
	{"depth 3 at 2", `{"a":{"b":[1]}}`, 2, Path{"a", "b"}, "array"},
	{"depth 3 at 1", `{"a":{"b":[1]}}`, 1, Path{"a"}, "object"},
	{"empty containers count", `[[[]]]`, 2, Path{0, 0}, "array"},
	{"brackets in strings", `{"a":"[[[[","b":["}}}]]]"]}`, 2, nil, ""},
	{"escaped quote in string", `{"a":"\"[[[","b":[1]}`, 2, nil, ""},
	{"escaped backslash before quote", `{"a":"\\","b":[[1]]}`, 2, Path{"b", 0}, "array"},
	{"escaped key", `{"a\"b":{"c\\d":[[1]]}}`, 3, Path{`a"b`, `c\d`, 0}, "array"},
	{"unicode escape key", `{"\u00e9\ud83d\ude00":[{}]}`, 2, Path{"é😀", 0}, "object"},
	{"non-ASCII key", `{"日本":[{}]}`, 2, Path{"日本", 0}, "object"},
	{"second element", `[[1],[[1]]]`, 2, Path{1, 0}, "array"},
	{"first of several elements", `[[1],[[1]],[[2]]]`, 2, Path{1, 0}, "array"},
	{"smallest key, not first", `{"b":[[1]],"a":[[1]]}`, 2, Path{"a", 0}, "array"},
	{"smallest path deeper down", `{"a":[[1],{"x":{}}],"b":[[[]]]}`, 2, Path{"a", 0}, "array"},
	{"smallest key at the second level", `{"k":{"z":{},"y":{}},"j":1}`, 2, Path{"k", "y"}, "object"},
	{"keys past the limit ignored", `{"a":{"b":{"c":{"d":1}}}}`, 2, Path{"a", "b"}, "object"},
	{"white space", " [ [ \n [ ] ] ] ", 2, Path{0, 0}, "array"},
	{"default 64 accepted", deepJSON(64, "1"), 0, nil, ""},
	{"default 64 passed", deepJSON(65, "1"), 0, make64(0), "array"},
	{"objects at 64", deepObjectJSON(64, "1"), 0, nil, ""},
	{"objects at 65", deepObjectJSON(65, "1"), 0, make64("a"), "object"},
	{"no limit", deepJSON(500, "1"), -1, nil, ""},
}

func make64(el any) Path {
	p := make(Path, 64)
	for i := range p {
		p[i] = el
	}
	return p
}

func TestCheckDepth(t *testing.T) {
	for _, tc := range depthCases {
		t.Run(tc.name, func(t *testing.T) {
			wantMax := tc.max
			if wantMax == 0 {
				wantMax = DefaultMaxDepth
			}
			check := func(t *testing.T, got Issue, over bool) {
				t.Helper()
				if over != (tc.want != nil) {
					t.Fatalf("over = %v, want %v (issue %+v)", over, tc.want != nil, got)
				}
				if !over {
					if !reflect.DeepEqual(got, Issue{}) {
						t.Fatalf("issue %+v with no depth passed", got)
					}
					return
				}
				want := Issue{Code: TooBig, Origin: OriginDepth, Maximum: Number(strconv.Itoa(wantMax)), Inclusive: true,
					Path: tc.want, Input: Unknown{Type: tc.typ}, Source: "selfheal:depth"}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("got  %+v\nwant %+v", got, want)
				}
			}
			t.Run("json", func(t *testing.T) {
				got, over := CheckDepthJSON([]byte(tc.doc), tc.max)
				check(t, got, over)
			})
			t.Run("decoded", func(t *testing.T) {
				got, over := CheckDepth(decodeExact(t, tc.doc), tc.max)
				check(t, got, over)
			})
		})
	}
}

// TestCheckDepthAgrees checks that both functions give the same answer for
// the same document, on generated documents of every shape.
func TestCheckDepthAgrees(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{"a", "b", "c", "a.b", `q"uote`, `back\slash`, "é", "[", "}", "", "\u2028"}
	var gen func(b *strings.Builder, depth int)
	gen = func(b *strings.Builder, depth int) {
		switch k := r.IntN(10); {
		case depth > 12 || k < 3:
			switch r.IntN(4) {
			case 0:
				b.WriteString(strconv.Itoa(r.IntN(100)))
			case 1:
				b.WriteString(`"[{\"}]"`)
			case 2:
				b.WriteString("null")
			default:
				b.WriteString(`"x\\"`)
			}
		case k < 7:
			b.WriteByte('{')
			seen := map[string]bool{}
			for i := range r.IntN(4) {
				key := keys[r.IntN(len(keys))]
				if seen[key] {
					continue // duplicate keys are decoded to the last: see CheckDepthJSON
				}
				seen[key] = true
				if i > 0 && len(seen) > 1 {
					b.WriteString(", ")
				}
				q, _ := json.Marshal(key)
				b.Write(q)
				b.WriteByte(':')
				gen(b, depth+1)
			}
			b.WriteByte('}')
		default:
			b.WriteString("[ ")
			for i := range r.IntN(4) {
				if i > 0 {
					b.WriteByte(',')
				}
				gen(b, depth+1)
			}
			b.WriteByte(']')
		}
	}
	for i := range 3000 {
		var b strings.Builder
		gen(&b, 0)
		doc := b.String()
		v := decodeExact(t, doc)
		for _, max := range []int{1, 2, 3, 5, 8} {
			a, aOver := CheckDepth(v, max)
			j, jOver := CheckDepthJSON([]byte(doc), max)
			if aOver != jOver || !reflect.DeepEqual(a, j) {
				t.Fatalf("document %d, max %d: %s\ndecoded: %v %+v\njson:    %v %+v", i, max, doc, aOver, a, jOver, j)
			}
		}
	}
}

func TestCheckDepthJSONMalformed(t *testing.T) {
	for _, tc := range []struct {
		doc  string
		max  int
		want bool
	}{
		{``, 1, false},
		{`[`, 1, false},
		{`[[`, 1, true}, // the limit is passed in what was read
		{`]]]]][[`, 1, true},
		{`]]]]][`, 1, false},
		{`"[[[[`, 1, false}, // all inside an unterminated string
		{`["\`, 1, false},
		{`{"\`, 1, false},
		{`{"a\u00`, 1, false},
		{`{"a\u00":[[`, 2, true},
		{`{{{`, 2, true},
		{`{:[,,,[`, 2, true},
		{`}}}{{`, 2, false},
		{"[\xff\xfe[", 1, true},
	} {
		is, over := CheckDepthJSON([]byte(tc.doc), tc.max)
		if over != tc.want {
			t.Errorf("%q max %d: over = %v (%+v), want %v", tc.doc, tc.max, over, is, tc.want)
		}
		if over && len(is.Path) != tc.max {
			t.Errorf("%q max %d: path %v is not %d long", tc.doc, tc.max, is.Path, tc.max)
		}
	}
	// Random bytes made of JSON's structural characters: no panic, and a
	// depth reported only when the brackets really pass the limit.
	r := rand.New(rand.NewPCG(3, 4))
	alphabet := []byte(`[]{}",:\ a1`)
	for range 20000 {
		data := make([]byte, r.IntN(40))
		for i := range data {
			data[i] = alphabet[r.IntN(len(alphabet))]
		}
		for _, max := range []int{1, 2, 3} {
			CheckDepthJSON(data, max)
		}
	}
}

func TestCheckDepthVeryDeep(t *testing.T) {
	const n = 100_000
	t.Run("json arrays", func(t *testing.T) {
		is, over := CheckDepthJSON([]byte(deepJSON(n, "1")), 0)
		if !over || len(is.Path) != DefaultMaxDepth || is.Input != (Unknown{Type: "array"}) {
			t.Fatalf("got %v %+v", over, is)
		}
	})
	t.Run("json objects, a large limit", func(t *testing.T) {
		is, over := CheckDepthJSON([]byte(deepObjectJSON(n, "1")), 1000)
		if !over || len(is.Path) != 1000 || is.Path[999] != "a" || is.Maximum != "1000" {
			t.Fatalf("got %v %v %+v", over, len(is.Path), is.Maximum)
		}
	})
	t.Run("json within no limit", func(t *testing.T) {
		if is, over := CheckDepthJSON([]byte(deepJSON(n, "1")), -1); over {
			t.Fatalf("got %+v", is)
		}
	})
	t.Run("decoded", func(t *testing.T) {
		// Built by hand: encoding/json stops at 10,000.
		var v any = "leaf"
		for range n {
			v = []any{v}
		}
		is, over := CheckDepth(v, 0)
		if !over || len(is.Path) != DefaultMaxDepth {
			t.Fatalf("got %v %+v", over, is)
		}
	})
	t.Run("decoded cycle", func(t *testing.T) {
		// A Go caller's cyclic value stops at the limit too.
		m := map[string]any{}
		m["self"] = m
		if is, over := CheckDepth(m, 10); !over || len(is.Path) != 10 {
			t.Fatalf("got %v %+v", over, is)
		}
	})
}

func TestCheckDepthOtherGoValuesAreLeaves(t *testing.T) {
	v := map[string]any{"a": []map[string]any{{"b": []any{[]any{1}}}}}
	if is, over := CheckDepth(v, 2); over {
		t.Fatalf("got %+v; want []map[string]any treated as a leaf", is)
	}
}

func TestCheckDepthAllocs(t *testing.T) {
	doc := []byte(`{"name":"Ada","email":"ada@example.com","tags":["a","b"],"address":{"city":"Paris","lines":["1 rue \"X\"","é"]},"n":[1,2,{"k":[[]]}]}`)
	v := decodeExact(t, string(doc))
	if n := testing.AllocsPerRun(100, func() { CheckDepthJSON(doc, 0) }); n != 0 {
		t.Errorf("CheckDepthJSON allocates %v times", n)
	}
	if n := testing.AllocsPerRun(100, func() { CheckDepth(v, 0) }); n != 0 {
		t.Errorf("CheckDepth allocates %v times", n)
	}
}

// FuzzCheckDepthJSON checks that CheckDepthJSON never panics and, for well
// formed JSON without duplicate keys, agrees with CheckDepth on the decoded
// value.
func FuzzCheckDepthJSON(f *testing.F) {
	for _, tc := range depthCases {
		f.Add([]byte(tc.doc), 2)
	}
	f.Fuzz(func(t *testing.T, data []byte, max int) {
		max = max%8 + 1
		if max < 1 {
			max += 8
		}
		j, jOver := CheckDepthJSON(data, max)
		if !json.Valid(data) || hasDuplicateKeys(data) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			return // deeper than encoding/json allows
		}
		a, aOver := CheckDepth(v, max)
		if aOver != jOver || !reflect.DeepEqual(a, j) {
			t.Fatalf("max %d: %q\ndecoded: %v %+v\njson:    %v %+v", max, data, aOver, a, jOver, j)
		}
	})
}

func BenchmarkCheckDepthJSON(b *testing.B) {
	doc := []byte(`{"name":"Ada","email":"ada@example.com","tags":["a","b"],"address":{"city":"Paris","lines":["1 rue \"X\"","é"]},"n":[1,2,{"k":[[]]}]}`)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		CheckDepthJSON(doc, 0)
	}
}

// hasDuplicateKeys reports whether an object of the valid JSON data
// repeats a key.
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	type level struct {
		obj  bool
		key  bool // the next string is a key
		seen map[string]bool
	}
	var stack []level
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) || err != nil {
			return false
		}
		var top *level
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if s, ok := tok.(string); ok && top != nil && top.obj && top.key {
			if top.seen[s] {
				return true
			}
			top.seen[s] = true
			top.key = false
			continue
		}
		if top != nil && top.obj {
			top.key = true // a value ends (or opens); the next string is a key
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, level{obj: true, key: true, seen: map[string]bool{}})
		case json.Delim('['):
			stack = append(stack, level{})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 && stack[len(stack)-1].obj {
				stack[len(stack)-1].key = true
			}
		}
	}
}

package formatter

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/catalog"
	"github.com/selfheal/selfheal/internal/nearmiss"
	"github.com/selfheal/selfheal/internal/testkit/race"

	"github.com/selfheal/selfheal/internal/testkit/golden"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

// catalogFormats lists the formats the English catalog has words for.
func catalogFormats() []string {
	var out []string
	for _, id := range catalog.Default().Keys() {
		if id[0] == "format" && id[2] == "" {
			out = append(out, id[1])
		}
	}
	return out
}

// TestGoldenLines renders every case in every shipped language and compares
// with testdata/lines.<lang>.golden (go test -update rewrites them).
func TestGoldenLines(t *testing.T) {
	all := append(cases[:len(cases):len(cases)], formatCases()...)
	for _, cat := range catalog.Available() {
		f := New(Options{Catalog: cat, Examples: true})
		var buf bytes.Buffer
		for _, c := range all {
			is := c.issue
			fields, more, _ := f.Fields(issues.List{is})
			if more != "" || len(fields) == 0 {
				t.Fatalf("%s: %d fields, more %q", c.name, len(fields), more)
			}
			for _, fl := range fields {
				fmt.Fprintf(&buf, "%s\t%s\t%s\n", c.name, fl.Name, fl.Text)
			}
		}
		golden.Check(t, "lines."+cat.Tag().String()+".golden", buf.Bytes())
	}
}

// TestLines pins the English wording the issue asks for, literally.
func TestLines(t *testing.T) {
	f := New(DefaultOptions())
	noEx := New(Options{})
	tests := []struct {
		f    *Formatter
		in   issues.Issue
		want string
	}{
		{noEx, issues.Issue{Code: issues.InvalidFormat, Path: P{"id"}, Input: "not-an-email", Format: "email"},
			"Invalid email format. You sent: 'not-an-email'. Expected a valid email address."},
		{f, issues.Issue{Code: issues.InvalidFormat, Path: P{"id"}, Input: "not-an-email", Format: "email"},
			"Invalid email format. You sent: 'not-an-email'. Expected a valid email address, e.g. 'user@example.com'."},
		{f, issues.Issue{Code: issues.TooSmall, Input: "ab", Origin: "string", Minimum: "3", Inclusive: true},
			"You sent: 'ab' (2 characters). Expected at least 3 characters."},
		{f, issues.Issue{Code: issues.TooSmall, Input: "", Origin: "string", Minimum: "1", Inclusive: true},
			"You sent: ''. Expected at least 1 character."},
		{f, issues.Issue{Code: issues.TooSmall, Input: 17, Origin: "number", Minimum: "18", Inclusive: true},
			"You sent: 17. Expected at least 18."},
		{f, issues.Issue{Code: issues.TooBig, Input: 1.5, Origin: "number", Maximum: "1"},
			"You sent: 1.5. Expected less than 1."},
		{f, issues.Issue{Code: issues.TooSmall, Input: "2020-01-01", Origin: "date", Minimum: "1767225600000", Inclusive: true},
			"You sent: '2020-01-01'. Expected a date on or after 2026-01-01T00:00:00Z."},
		{f, issues.Issue{Code: issues.InvalidType, Input: "42", Expected: issues.TypeInteger},
			"You sent: '42'. Expected an integer: 42."},
		{f, issues.Issue{Code: issues.InvalidType, Input: `{"a":1}`, Expected: issues.TypeObject},
			`You sent: '{"a":1}'. Expected an object, not a string.`},
		{f, issues.Issue{Code: issues.InvalidType, Absent: true, Expected: issues.TypeString},
			"You sent: nothing. Expected a string."},
		{f, issues.Issue{Code: issues.InvalidType, Input: []any{1.0, "x"}, Expected: issues.TypeObject},
			`You sent: [1,"x"]. Expected an object.`},
		{f, issues.Issue{Code: issues.NotMultipleOf, Input: 7, Divisor: "5"},
			"You sent: 7. Expected a multiple of 5, such as 5 or 10."},
		{f, issues.Issue{Code: issues.UnrecognizedKeys, Keys: []string{"nmae"}, Allowed: []string{"name", "email"}},
			"Unknown key; did you mean 'name'? You sent: 'nmae'. Expected one of 'name','email'."},
		{f, issues.Issue{Code: issues.InvalidValue, Input: "Blue", Values: []any{"red", "blue"}},
			"You sent: 'Blue'. Expected one of 'red','blue'."},
		{f, issues.Issue{Code: issues.InvalidFormat, Input: strings.Repeat("é", 5000), Format: "email"},
			"Invalid email format. You sent: '" + strings.Repeat("é", 60) + "…' (5000 characters). Expected a valid email address, e.g. 'user@example.com'."},
		{f, issues.Issue{Code: issues.InvalidFormat, Input: "a\nb", Format: "uuid"},
			`You sent: 'a\nb'. Expected a UUID (8-4-4-4-12 hex digits).`},
		{f, issues.Issue{Code: issues.Custom, Input: 3, Message: "Must be even.\n"},
			"Must be even. You sent: 3."},
		{f, issues.Issue{Code: issues.Custom, Path: P{"user", "Password"}, Input: "hunter2", Message: "Too weak"},
			"Too weak. You sent: a string of 7 characters, not shown because the field is sensitive."},
	}
	for _, tt := range tests {
		got := string(tt.f.AppendLine(nil, &tt.in))
		if got != tt.want {
			t.Errorf("%s at %s:\n got %s\nwant %s", tt.in.Code, tt.in.Path, got, tt.want)
		}
	}
}

// TestSeed reproduces docs/ARCHITECTURE.md 2.2 byte for byte.
func TestSeed(t *testing.T) {
	f := New(Options{})
	got := string(f.AppendValidation(nil, "billing.get_invoice", issues.List{
		{Code: issues.InvalidFormat, Path: P{"id"}, Input: "not-an-email", Format: "email"},
	}))
	want := `<validation_error action="billing.get_invoice">
  <field name="id">Invalid email format. You sent: 'not-an-email'. Expected a valid email address.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestOrderAndDuplicates(t *testing.T) {
	f := New(Options{})
	missing := issues.Issue{Code: issues.InvalidType, Path: P{"b"}, Absent: true, Expected: issues.TypeString}
	fields, more, _ := f.Fields(issues.List{
		{Code: issues.TooSmall, Path: P{"items", 10}, Input: 0, Origin: "number", Minimum: "1", Inclusive: true},
		missing,
		{Code: issues.TooSmall, Path: P{"items", 2}, Input: 0, Origin: "number", Minimum: "1", Inclusive: true},
		missing,
		{Code: issues.InvalidType, Path: P{"a"}, Input: 1.0, Expected: issues.TypeString},
	})
	var names []string
	for _, fl := range fields {
		names = append(names, fl.Name)
	}
	if got := strings.Join(names, " "); got != "a b items[2] items[10]" || more != "" {
		t.Errorf("order %q more %q", got, more)
	}
}

func TestBudget(t *testing.T) {
	var list issues.List
	for i := range 30 {
		list = append(list, issues.Issue{Code: issues.InvalidType, Path: P{"items", i}, Input: 1.0, Expected: issues.TypeString})
	}
	fields, more, _ := New(Options{}).Fields(list)
	if len(fields) != 20 || more != "…and 10 more issues not shown. Fix the fields above first." {
		t.Errorf("default budget: %d fields, more %q", len(fields), more)
	}
	fields, more, _ = New(Options{MaxIssues: 29}).Fields(list)
	if len(fields) != 29 || more != "…and 1 more issue not shown. Fix the fields above first." {
		t.Errorf("29: %d fields, more %q", len(fields), more)
	}
	fields, more, _ = New(Options{MaxIssues: -1}).Fields(list)
	if len(fields) != 30 || more != "" {
		t.Errorf("unlimited: %d fields, more %q", len(fields), more)
	}
	out := New(Options{MaxBytes: 300}).AppendValidation(nil, "a", list)
	if n := bytes.Count(out, []byte("<field ")); n != 4 {
		t.Errorf("300 bytes held %d fields:\n%s", n, out)
	}
	if !bytes.Contains(out, []byte("…and 26 more issues not shown")) {
		t.Errorf("no more note:\n%s", out)
	}
	// A single line longer than the byte budget is still shown: a model
	// must get at least one precise line.
	big := issues.List{{Code: issues.Custom, Input: 1.0, Message: strings.Repeat("x", 500)}}
	if fields, _, _ := New(Options{MaxBytes: 100}).Fields(big); len(fields) != 1 {
		t.Errorf("first line dropped")
	}
}

// TestExamplesAreValid checks every example against a real validator of its
// format: jsonschema's format checks for JSON Schema formats, and the
// patterns Zod v4 uses for its own.
func TestExamplesAreValid(t *testing.T) {
	zod := map[string]string{
		"url":          `^https?://[^\s/$.?#].[^\s]*$`,
		"guid":         `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`,
		"datetime":     `^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$`,
		"cidrv4":       `^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)/([0-9]|[1-2][0-9]|3[0-2])$`,
		"cidrv6":       `^[0-9a-fA-F:]+::?[0-9a-fA-F:]*/(12[0-8]|1[01][0-9]|[1-9]?[0-9])$`,
		"base64":       `^$|^(?:[0-9a-zA-Z+/]{4})*(?:(?:[0-9a-zA-Z+/]{2}==)|(?:[0-9a-zA-Z+/]{3}=))?$`,
		"base64url":    `^[A-Za-z0-9_-]*$`,
		"e164":         `^\+[1-9]\d{6,14}$`,
		"jwt":          `^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$`,
		"emoji":        `^(\p{So}|\p{Sk})+$`,
		"nanoid":       `^[a-zA-Z0-9_-]{21}$`,
		"cuid":         `^[cC][^\s-]{8,}$`,
		"cuid2":        `^[0-9a-z]+$`,
		"ulid":         `^[0-9A-HJKMNP-TV-Za-hjkmnp-tv-z]{26}$`,
		"xid":          `^[0-9a-vA-V]{20}$`,
		"ksuid":        `^[A-Za-z0-9]{27}$`,
		"lowercase":    `^[^A-Z]*$`,
		"uppercase":    `^[^a-z]*$`,
		"idn-email":    `^[^@\s]+@[^@\s]+$`,
		"idn-hostname": `^[^\s.]+(\.[^\s.]+)*$`,
	}
	// Formats whose validity depends on the server's own files: no example
	// could be valid for every server.
	serverState := map[string]bool{"dir": true, "file": true, "image": true, "uds_exists": true}
	for _, f := range catalogFormats() {
		ex, ok := examples[f]
		if !ok {
			if !serverState[f] {
				t.Errorf("format %s has no example", f)
			}
			continue
		}
		switch f {
		case "json", "json_string":
			if !json.Valid([]byte(ex)) {
				t.Errorf("%s example %q is not JSON", f, ex)
			}
			continue
		case "regex":
			if _, err := regexp.Compile(ex); err != nil {
				t.Errorf("regex example %q: %v", ex, err)
			}
			continue
		}
		if re, ok := zod[f]; ok {
			if !regexp.MustCompile(re).MatchString(ex) {
				t.Errorf("%s example %q fails %s", f, ex, re)
			}
			continue
		}
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		if err := c.AddResource("s.json", map[string]any{"format": f}); err != nil {
			t.Fatal(err)
		}
		sch, err := c.Compile("s.json")
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(ex); err != nil {
			t.Errorf("%s example %q is invalid: %v", f, ex, err)
		}
		if err := sch.Validate("not valid"); err == nil && f != "uri-reference" && f != "iri-reference" && f != "json-pointer" {
			t.Logf("%s accepts %q: the golden case does not show a real failure", f, "not valid")
		}
	}
}

// goSyntax are fragments that would mean a Go value leaked into a line.
var goSyntax = regexp.MustCompile(`map\[|&\{|<nil>|%!|\[\]interface|\[\]any|0x[0-9a-f]{6,}|struct \{`)

// TestLinesAreCleanForAnyValue renders awkward Go values in every code and
// checks each line is one line, names no Go syntax and escapes to XML.
func TestLinesAreCleanForAnyValue(t *testing.T) {
	type inner struct {
		A int    `json:"a"`
		B string `json:"-"`
		C *int
		d int
	}
	n := 3
	values := []any{nil, "", "a\nb\r\x00\x1b", "\xff\xfe", "]]></field><x>", 1.5, math.Copysign(0, -1), 1e300, int8(-3), uint64(1 << 63),
		true, []any{}, map[string]any{}, []int{1, 2}, map[int]string{1: "a"}, inner{A: 1, C: &n, d: 2}, &inner{},
		(*inner)(nil), make(chan int), func() {}, [2]bool{}, []byte("bytes"), json.Number("12"), json.Number("x\ny"),
		map[string]any{"nested": map[string]any{"deeper": []any{map[string]any{"deepest": 1.0}}}}, struct{}{}, &n,
		issues.Unknown{}, issues.Unknown{Type: "object"}, issues.Unknown{Type: "\x00<"}}
	f := New(DefaultOptions())
	for _, code := range issuesx.Codes {
		for _, v := range values {
			is := issues.Issue{Code: code, Path: P{"f"}, Input: v, Expected: issues.TypeString, Origin: "string",
				Minimum: "1", Maximum: "2", Format: "email", Keys: []string{"k\n"}, Values: []any{v, "x"},
				Divisor: "2", Message: "m\n", Key: v, Branches: [][]issues.Issue{{{Code: issues.Custom, Input: v}}},
				Issues: []issues.Issue{{Code: issues.InvalidType, Input: v, Expected: issues.TypeInteger}}}
			out := f.AppendValidation(nil, "act", issues.List{is})
			for _, line := range strings.Split(string(out), "\n") {
				if m := goSyntax.FindString(line); m != "" {
					t.Errorf("%s with %T: Go syntax %q in %s", code, v, m, line)
				}
			}
			var doc struct {
				Fields []string `xml:"field"`
			}
			if err := xml.Unmarshal(out, &doc); err != nil {
				t.Errorf("%s with %T: not XML: %v\n%s", code, v, err, out)
			}
			for _, fl := range doc.Fields {
				if strings.ContainsAny(fl, "\n\r") {
					t.Errorf("%s with %T: line breaks in %q", code, v, fl)
				}
			}
			if _, err := envelope.Parse(string(out)); err != nil {
				t.Errorf("%s with %T: Parse: %v", code, v, err)
			}
		}
	}
}

func TestRedaction(t *testing.T) {
	r := newRedactor(defaultRedact)
	for key, want := range map[string]bool{
		"password": true, "Password": true, "user_password": true, "passwordConfirmation": true,
		"apiKey": true, "api_key": true, "X-Api-Key": true, "APIKey": true, "apikey": true,
		"access_token": true, "refreshToken": true, "tokens": true, "Authorization": true,
		"set-cookie": true, "cookies": true, "sessionId": true, "card_number": true, "cardNumber": true,
		"cvv": true, "SSN": true, "private_key": true, "client_secret": true,
		"name": false, "author": false, "max_size": false, "keyboard": false, "passport": false,
		"tokenizer": false, "cardinal": false, "lessons": false, "description": false, "": false,
	} {
		if got := r.matches(key); got != want {
			t.Errorf("matches(%q) = %v, want %v", key, got, want)
		}
	}
	if !r.path(P{"auth", 0, "token"}) || r.path(P{"items", 0, "name"}) {
		t.Error("path matching is wrong")
	}
	if newRedactor(nil).matches("password") {
		t.Error("an empty list redacts")
	}
	custom := New(Options{Redact: []string{"pin"}})
	got := string(custom.AppendLine(nil, &issues.Issue{Code: issues.TooSmall, Path: P{"pin"}, Input: "12", Origin: "string", Minimum: "4", Inclusive: true}))
	if strings.Contains(got, "'12'") {
		t.Errorf("custom redaction leaked: %s", got)
	}
	got = string(custom.AppendLine(nil, &issues.Issue{Code: issues.TooSmall, Path: P{"password"}, Input: "ab", Origin: "string", Minimum: "4", Inclusive: true}))
	if !strings.Contains(got, "'ab'") {
		t.Errorf("a replaced list still redacts password: %s", got)
	}
}

func TestClosest(t *testing.T) {
	opts := []string{"name", "email", "user_id", "created_at", "USD", "kind", "Key"}
	for in, want := range map[string]string{
		"Kind": "kind", "KEY": "Key", // the Kelvin sign folds with k
		"nmae": "name", "Name": "name", "emial": "email", "mail": "email", "userid": "user_id",
		"user-id": "user_id", "createdAt": "created_at", "usd": "USD", "x": "", "zzzzzz": "", "": "",
		strings.Repeat("a", 100): "",
	} {
		got, ok := nearmiss.Closest(in, opts)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestAllocs holds the budget of docs/ARCHITECTURE.md 5: rendering into a reused
// buffer allocates nothing once warm.
func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	f := New(DefaultOptions())
	list := benchIssues(20)
	buf := f.AppendValidation(nil, "users.create", list)
	if n := testing.AllocsPerRun(200, func() { buf = f.AppendValidation(buf[:0], "users.create", list) }); n != 0 {
		t.Errorf("AppendValidation allocates %v times per call", n)
	}
	ja := New(Options{Catalog: catalog.Match("ja"), Examples: true})
	if n := testing.AllocsPerRun(200, func() { buf = ja.AppendValidation(buf[:0], "users.create", list) }); n != 0 {
		t.Errorf("AppendValidation (ja) allocates %v times per call", n)
	}
}

// benchIssues returns n realistic issues cycling through the common codes.
func benchIssues(n int) issues.List {
	base := issues.List{
		{Code: issues.InvalidFormat, Path: P{"email"}, Input: "not-an-email", Format: "email"},
		{Code: issues.TooSmall, Path: P{"name"}, Input: "ab", Origin: "string", Minimum: "3", Inclusive: true},
		{Code: issues.InvalidType, Path: P{"age"}, Input: "42", Expected: issues.TypeInteger},
		{Code: issues.InvalidValue, Path: P{"role"}, Input: "Admin", Values: []any{"admin", "member", "viewer"}},
		{Code: issues.InvalidType, Path: P{"team_id"}, Absent: true, Expected: issues.TypeString},
		{Code: issues.TooBig, Path: P{"tags"}, Input: []any{"a", "b", "c"}, Origin: "array", Maximum: "2", Inclusive: true},
		{Code: issues.UnrecognizedKeys, Keys: []string{"nmae"}, Allowed: []string{"name", "email", "age"}},
		{Code: issues.TooBig, Path: P{"limit"}, Input: 1000, Origin: "integer", Maximum: "100", Inclusive: true},
	}
	out := make(issues.List, n)
	for i := range out {
		out[i] = base[i%len(base)]
		out[i].Path = append(issues.Path{"items", i}, base[i%len(base)].Path...)
	}
	return out
}

// TestMergedMisspeltKey: a misspelt key and the required field it should
// have been are one line, at the field; the object's other unknown keys keep
// their own line, and a key that suggests no missing field is not merged.
func TestMergedMisspeltKey(t *testing.T) {
	list := issues.List{
		{Code: issues.UnrecognizedKeys, Keys: []string{"emial", "zzz"}, Allowed: []string{"address", "age", "email", "name", "role", "tags"}},
		{Code: issues.InvalidType, Path: P{"email"}, Absent: true, Expected: issues.TypeString},
		{Code: issues.InvalidType, Path: P{"name"}, Absent: true, Expected: issues.TypeString},
		{Code: issues.UnrecognizedKeys, Path: P{"address"}, Keys: []string{"zip"}, Allowed: []string{"city", "postcode"}},
		{Code: issues.InvalidType, Path: P{"address", "city"}, Absent: true},
	}
	for _, tc := range []struct {
		f    *Formatter
		want string
	}{
		{New(DefaultOptions()), `<validation_error action="users.create">
  <field name="(root)">Unknown key. You sent: 'zzz'. Expected one of 'address','age','email','name','role','tags'.</field>
  <field name="address">Unknown key. You sent: 'zip'. Expected one of 'city','postcode'.</field>
  <field name="address.city">You sent: nothing. Expected a value.</field>
  <field name="email">Missing. You sent: the unknown key 'emial'. Expected a string.</field>
  <field name="name">You sent: nothing. Expected a string.</field>
  <recovery>Fix the fields above and call the tool again. Do not explain the error.</recovery>
</validation_error>`},
		{New(Options{Catalog: catalog.Match("ja")}), `<validation_error action="users.create">
  <field name="(root)">不明なキーです。送信値: 'zzz'。期待: 'address','age','email','name','role','tags' のいずれか。</field>
  <field name="address">不明なキーです。送信値: 'zip'。期待: 'city','postcode' のいずれか。</field>
  <field name="address.city">送信値: なし。期待: 値。</field>
  <field name="email">必須です。送信値: 不明なキー 'emial'。期待: 文字列。</field>
  <field name="name">送信値: なし。期待: 文字列。</field>
  <recovery>上のフィールドを修正して、もう一度ツールを呼び出してください。エラーの説明はしないでください。</recovery>
</validation_error>`},
	} {
		for range 3 { // the pooled state reused: the same lines
			if got := string(tc.f.AppendValidation(nil, "users.create", list)); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		}
		fields, more, _ := tc.f.Fields(list)
		if len(fields) != 5 || more != "" || fields[3].Name != "email" {
			t.Errorf("Fields: %d fields (%q), the fourth at %q", len(fields), more, fields[3].Name)
		}
	}
	// With only room for one line, the other four are counted, not five.
	f := New(Options{MaxIssues: 1})
	if _, more, _ := f.Fields(list); more == "" || !strings.Contains(more, "4") {
		t.Errorf("more = %q, want 4 more", more)
	}
	if race.Enabled {
		return
	}
	// Merged lines and the nearest few of a long list (more than 10 values)
	// allocate nothing once warm, like every other line.
	f = New(DefaultOptions())
	list = append(list, issues.Issue{Code: issues.InvalidValue, Path: P{"role"}, Input: "admn",
		Values: []any{"owner", "admin", "member", "viewer", "guest", "billing", "support", "auditor", "editor", "reader", "writer", "operator"}})
	buf := f.AppendValidation(nil, "users.create", list)
	if !strings.Contains(string(buf), "Expected one of 'admin','reader','owner', and 9 more.") {
		t.Errorf("the long list is not cut to the nearest:\n%s", buf)
	}
	if n := testing.AllocsPerRun(200, func() { buf = f.AppendValidation(buf[:0], "users.create", list) }); n != 0 {
		t.Errorf("AppendValidation allocates %v times per call", n)
	}
}

// TestMergedLoneKey: in an object of a closed schema, the one key left
// unknown and the one required field left missing are one line at the
// field when the key's value has the field's type ('qty' for 'quantity':
// the field sent under another name). A value of another type, a second
// missing field, a second unknown key or an open schema's near miss keeps
// two lines: which key stands for which field would be a guess.
func TestMergedLoneKey(t *testing.T) {
	f := New(DefaultOptions())
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	unknown := func(in map[string]any, check string, keys ...string) issues.Issue {
		return issues.Issue{Code: issues.UnrecognizedKeys, Path: P{"item"}, Input: in, Keys: keys,
			Allowed: []string{"quantity", "sku", "time"}, Check: check}
	}
	missing := func(name string, t issues.Types) issues.Issue {
		return issues.Issue{Code: issues.InvalidType, Path: P{"item", name}, Absent: true, Expected: t}
	}
	for _, tc := range []struct {
		name string
		list issues.List
		want []string
	}{
		{"merged", issues.List{unknown(obj("qty", 2.0), "", "qty"), missing("quantity", issues.TypeInteger)},
			[]string{"item.quantity: Missing. You sent: the unknown key 'qty'. Expected an integer."}},
		{"any type", issues.List{unknown(obj("at", "7:00"), "", "at"), missing("time", 0)},
			[]string{"item.time: Missing. You sent: the unknown key 'at'. Expected a value."}},
		{"another type", issues.List{unknown(obj("qty", "two"), "", "qty"), missing("quantity", issues.TypeInteger)},
			[]string{"item: Unknown key. You sent: 'qty'. Expected one of 'quantity','sku','time'.",
				"item.quantity: You sent: nothing. Expected an integer."}},
		{"a fraction for an integer", issues.List{unknown(obj("qty", 2.5), "", "qty"), missing("quantity", issues.TypeInteger)},
			[]string{"item: Unknown key. You sent: 'qty'. Expected one of 'quantity','sku','time'.",
				"item.quantity: You sent: nothing. Expected an integer."}},
		{"two missing", issues.List{unknown(obj("qty", 2.0), "", "qty"), missing("quantity", issues.TypeInteger), missing("sku", issues.TypeString)},
			[]string{"item: Unknown key. You sent: 'qty'. Expected one of 'quantity','sku','time'.",
				"item.quantity: You sent: nothing. Expected an integer.",
				"item.sku: You sent: nothing. Expected a string."}},
		{"two unknown", issues.List{unknown(obj("qty", 2.0, "n", 1.0), "", "n", "qty"), missing("quantity", issues.TypeInteger)},
			[]string{"item: Unknown keys. You sent: 'n','qty'. Expected one of 'quantity','sku','time'.",
				"item.quantity: You sent: nothing. Expected an integer."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fields, _, _ := f.Fields(tc.list)
			var got []string
			for _, fl := range fields {
				got = append(got, fl.Name+": "+fl.Text)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

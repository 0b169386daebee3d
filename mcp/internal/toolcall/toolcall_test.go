package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/issues"
)

func TestStructuredLeavesInputsOut(t *testing.T) {
	list := issues.List{
		{Code: issues.TooSmall, Path: issues.Path{"name"}, Input: "A", Minimum: "2", Origin: "string"},
		// The union's value is an object: the chosen alternative is the
		// object one, whose issue carries the secret sent.
		{Code: issues.InvalidUnion, Input: map[string]any{"password": "s3cret"}, Branches: [][]issues.Issue{
			{{Code: issues.InvalidType, Expected: issues.TypeString, Input: map[string]any{"password": "s3cret"}}},
			{{Code: issues.TooSmall, Path: issues.Path{"password"}, Input: "s3cret", Minimum: "8", Origin: "string"}},
		}},
		{Code: issues.InvalidType, Expected: issues.TypeObject, Absent: true},
	}
	_, sc := Answer(selfheal.New(), "t", list, nil)
	data, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"issues":[{"code":"invalid_type","path":[],"expected":"object"},{"code":"too_small","path":["password"],"origin":"string","minimum":8,"inclusive":false},{"code":"too_small","path":["name"],"origin":"string","minimum":2,"inclusive":false}]}`
	if string(data) != want {
		t.Errorf("got  %s\nwant %s", data, want)
	}
	if list[0].Input != "A" || list[1].Branches[1][0].Input != "s3cret" {
		t.Error("Structured modified its argument")
	}
}

func TestLocale(t *testing.T) {
	if got := MetaLocaleOf(map[string]any{MetaLocale: " ja "}); got != "ja" {
		t.Errorf("MetaLocaleOf = %q", got)
	}
	if got := MetaLocaleOf(map[string]any{MetaLocale: 1}); got != "" {
		t.Errorf("MetaLocaleOf(non-string) = %q", got)
	}
	if got := AcceptLanguage(http.Header{"Accept-Language": {"de-CH, de;q=0.9"}}); got != "de-CH, de;q=0.9" {
		t.Errorf("AcceptLanguage = %q", got)
	}
	if got := AcceptLanguage(nil); got != "" {
		t.Errorf("AcceptLanguage(nil) = %q", got)
	}
}

func TestAsToolError(t *testing.T) {
	te, ok := AsToolError(fmt.Errorf("wrapped: %w", envelope.Error(envelope.NotFound, "no such invoice")))
	if !ok || te.Code != envelope.NotFound {
		t.Errorf("envelope: %v %v", te, ok)
	}
	te, ok = AsToolError(errors.New("dial tcp: refused"))
	if ok || te.Code != envelope.InternalError {
		t.Errorf("plain error: %v %v", te, ok)
	}
}

// TestValidate: a call's issues, not owned, read as sch.Validate's.
func TestValidate(t *testing.T) {
	sch, err := jsonschemav6.Compile([]byte(`{
		"type": "object",
		"required": ["city", "name"],
		"properties": {
			"city": {"type": "string"},
			"name": {"type": "string", "minLength": 2},
			"zip": {"type": "string", "pattern": "^[0-9]{5}$"},
			"age": {"type": "integer"},
			"tags": {"type": "array", "uniqueItems": true, "items": {"type": "string", "minLength": 2}}
		}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	inst := map[string]any{"name": "A", "zip": "7-001", "age": "36", "tags": []any{"a", "a"}}
	list := Validate(sch, inst)
	if len(list) != 7 {
		t.Fatalf("%d issues, want 7: %v", len(list), list)
	}
	e := selfheal.New()
	want, _ := Answer(e, "t", list, nil)
	// The library reports in map order: the texts, sorted, are the same.
	if got, _ := Answer(e, "t", sch.Validate(inst), nil); got.String() != want.String() {
		t.Fatalf("Validate's issues read\n%s\nsch.Validate's\n%s", want, got)
	}
}

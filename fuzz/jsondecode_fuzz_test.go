package fuzz

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/internal/issuesx"
	"github.com/selfheal/selfheal/issues"
)

type jdBase struct {
	ID   int64     `json:"id"`
	When time.Time `json:"when"`
}

type jdItem struct {
	SKU  string   `json:"sku"`
	Qty  int8     `json:"qty"`
	Next *jdItem  `json:"next,omitempty"`
	Tags []string `json:"tags"`
}

// jdArgs has a field of every shape jsondecode walks.
type jdArgs struct {
	jdBase
	Name    string            `json:"name"`
	Note    *string           `json:"note,omitempty"`
	Count   uint16            `json:"count"`
	Ratio   float32           `json:"ratio"`
	On      bool              `json:"on"`
	Items   []jdItem          `json:"items"`
	Pair    [2]int            `json:"pair"`
	Labels  map[string]string `json:"labels"`
	ByID    map[int8]bool     `json:"by_id"`
	Extra   any               `json:"extra"`
	Raw     json.RawMessage   `json:"raw"`
	Amount  json.Number       `json:"amount"`
	Addr    netip.Addr        `json:"addr"`
	Blob    []byte            `json:"blob"`
	Quoted  int32             `json:"quoted,string"`
	QBool   bool              `json:"qbool,string"`
	QString string            `json:"qstring,string"`
	Skipped string            `json:"-"`
}

// FuzzJSONDecode feeds arbitrary bytes to jsondecode.Decode and checks that
// it never panics and agrees with a strict encoding/json decode: nil exactly
// when encoding/json (with DisallowUnknownFields, and no trailing data)
// succeeds, with the same result; otherwise a non-empty issues.List of
// known codes whose JSON form marshals.
func FuzzJSONDecode(f *testing.F) {
	for _, s := range []string{
		``, ` `, `null`, `{}`, `[]`, `"x"`, `1`, `{"name":"a"} x`, `{"name":"a"}{}`, `{"name":`, `{"name":"\u00e9\ud800"}`,
		`{"id":1,"when":"2026-01-31T09:30:00Z","name":"a","note":null,"count":65535,"ratio":-1.5e-3,"on":true,
		  "items":[{"sku":"x","qty":-128,"next":{"qty":127,"tags":["a",null]}}],"pair":[1,2,3],"labels":{"a.b":"c"},
		  "by_id":{"-1":true},"extra":{"x":[1,{}]},"raw":[ 1 ],"amount":"1e-7","addr":"::1","blob":"aGk=",
		  "quoted":"-7","qbool":"false","qstring":"\"s\""}`,
		`{"ID":"1","When":5,"NAME":1,"count":-1,"ratio":1e39,"on":"true","items":{},"pair":"x","labels":[],"by_id":{"x":1},
		  "amount":true,"addr":"1.2.3","blob":"%","quoted":7,"qbool":"yes","qstring":"s","nmae":1,"Skipped":""}`,
		`{"items":[{"qty":1.5},{"qty":1e2},{"qty":300,"qtty":1},{"next":{"next":{"sku":[]}}}]}`,
		`{"by_id":{"300":true,"+5":false,"1.0":true},"quoted":"1e3","count":"12","ratio":"NaN"}`,
		strings.Repeat(`[`, 200) + strings.Repeat(`]`, 200),
		`{"extra":` + strings.Repeat(`[`, 70) + strings.Repeat(`]`, 70) + `}`, // encoding/json accepts it, Decode refuses it
		"{\"name\":\"\xff\xfe\",\"\xffkey\":1}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got jdArgs
		err := jsondecode.Decode(data, &got)

		var want jdArgs
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.DisallowUnknownFields()
		stdErr := dec.Decode(&want)
		if stdErr == nil && !json.Valid(data) {
			stdErr = errors.New("trailing data")
		}

		if err == nil {
			if stdErr != nil {
				t.Fatalf("Decode accepted %q; encoding/json: %v", data, stdErr)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("Decode(%q) = %+v; encoding/json gives %+v", data, got, want)
			}
			return
		}
		list, ok := err.(issues.List)
		if !ok || len(list) == 0 {
			t.Fatalf("Decode(%q) = %v (%T), want a non-empty issues.List", data, err, err)
		}
		if deep, over := issues.CheckDepthJSON(data, 0); over {
			// Refused for its nesting, before encoding/json decodes it.
			if len(list) != 1 || list[0].Origin != issues.OriginDepth || list[0].Path.Compare(deep.Path) != 0 {
				t.Fatalf("Decode(%q) = %v, want the depth issue %v alone", data, list, deep)
			}
			return
		}
		if stdErr == nil {
			t.Fatalf("Decode(%q) reported %v; encoding/json accepts it", data, list)
		}
		for _, is := range list {
			if !slices.Contains(issuesx.Codes, is.Code) {
				t.Fatalf("Decode(%q): unknown code %q", data, is.Code)
			}
			for _, el := range is.Path {
				switch el.(type) {
				case string, int:
				default:
					t.Fatalf("Decode(%q): path element %#v", data, el)
				}
			}
		}
		if _, err := json.Marshal(list); err != nil {
			t.Fatalf("Decode(%q): issues do not marshal: %v", data, err)
		}
	})
}

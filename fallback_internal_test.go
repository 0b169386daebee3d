package selfheal

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	"github.com/selfheal/selfheal/issues"
)

// TestAppendJSONErrors: the last resort for encoding/json's errors, for an
// engine not given jsondecode.Errors.
func TestAppendJSONErrors(t *testing.T) {
	var args struct {
		Items []struct {
			Age int `json:"age"`
		} `json:"items"`
	}
	typeErr := json.Unmarshal([]byte(`{"items":[{"age":"12"}]}`), &args)
	syntaxErr := json.Unmarshal([]byte(`{"age":`), &args)
	list, ok := appendJSONErrors(nil, fmt.Errorf("bind: %w", typeErr))
	if !ok || len(list) != 1 || list[0].Code != issues.Custom || list[0].Message != typeErr.Error() {
		t.Fatalf("type error: %v %#v", ok, list)
	}
	if want := (issues.Path{"items", "age"}); !reflect.DeepEqual(list[0].Path, want) && !reflect.DeepEqual(list[0].Path, issues.Path{"items", 0, "age"}) {
		t.Errorf("type error path %v", list[0].Path)
	}
	if list, ok := appendJSONErrors(nil, syntaxErr); !ok || len(list) != 1 || list[0].Path != nil || list[0].Message != syntaxErr.Error() {
		t.Errorf("syntax error: %v %#v", ok, list)
	}
	if _, ok := appendJSONErrors(nil, fmt.Errorf("other")); ok {
		t.Error("a plain error is recognised")
	}
}

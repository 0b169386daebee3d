package selfheal_test

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/adapters/jsondecode"
	"github.com/selfheal/selfheal/adapters/jsonschemav5"
	"github.com/selfheal/selfheal/adapters/jsonschemav6"
	"github.com/selfheal/selfheal/envelope"
	"github.com/selfheal/selfheal/internal/testkit/hostile"
	"github.com/selfheal/selfheal/issues"
)

// hostileSlack is what a validation_error or its issues' JSON may take past
// the byte budget: the envelope, the note on omitted issues, and the first
// line, which is always shown and whose every value, key and list is cut.
const hostileSlack = 4 << 10

// TestHostileArguments sends every hostile case through every adapter and
// the facade, and checks the bounds of what a model would read: the text
// and the structured issues within the budget plus hostileSlack, no more
// lines than the issue budget, every issue accounted for, the envelope
// well formed.
func TestHostileArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 10 MiB arguments")
	}
	v6, err := jsonschemav6.Compile([]byte(hostile.Schema))
	if err != nil {
		t.Fatal(err)
	}
	v5, err := jsonschemav5.Compile([]byte(hostile.Schema))
	if err != nil {
		t.Fatal(err)
	}
	adapters := []struct {
		name     string
		validate func([]byte) issues.List
	}{
		{"jsonschemav6", v6.ValidateJSON},
		{"jsonschemav5", v5.ValidateJSON},
		{"jsondecode", func(data []byte) issues.List {
			var args hostile.Args
			list, _ := jsondecode.Decode(data, &args).(issues.List)
			return list
		}},
	}
	e := selfheal.New()
	for _, tc := range hostile.Cases() {
		for _, a := range adapters {
			list := a.validate(tc.Args)
			if len(list) == 0 {
				t.Errorf("%s, %s: no issue", tc.Name, a.name)
				continue
			}
			out := e.Format("tool", list)
			d, err := envelope.Parse(out)
			if err != nil || d.Validation == nil {
				t.Errorf("%s, %s: not a validation_error: %v\n%.1000s", tc.Name, a.name, err, out)
				continue
			}
			lines := len(d.Validation.Fields)
			if len(out) > formatterMaxBytes+hostileSlack || lines > 20 {
				t.Errorf("%s, %s: %d bytes, %d lines:\n%.3000s", tc.Name, a.name, len(out), lines, out)
			}
			if tc.Issues > 0 && a.name != "jsondecode" {
				if got := lines + omitted(d.Validation.More); got != tc.Issues {
					t.Errorf("%s, %s: %d lines + %q, want %d issues in all:\n%.3000s", tc.Name, a.name, lines, d.Validation.More, tc.Issues, out)
				}
			}
			if tc.Want != "" && a.name != "jsondecode" && !strings.Contains(out, tc.Want) {
				t.Errorf("%s, %s: no %q in\n%.3000s", tc.Name, a.name, tc.Want, out)
			}
			_, shown := e.Result("tool", list)
			data, err := json.Marshal(shown)
			if err != nil || len(data) > formatterMaxBytes+hostileSlack {
				t.Errorf("%s, %s: issues JSON of %d bytes (%v):\n%.3000s", tc.Name, a.name, len(data), err, data)
			}
		}
	}
}

const formatterMaxBytes = 4 << 10

// omitted reads the count of a note on omitted issues ("…and 3 more").
func omitted(more string) int {
	for _, f := range strings.Fields(more) {
		if n, err := strconv.Atoi(f); err == nil {
			return n
		}
	}
	return 0
}

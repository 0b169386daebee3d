package toolcall

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/selfheal/selfheal/contract"
	"github.com/selfheal/selfheal/envelope"
)

func TestToolContract(t *testing.T) {
	old, err := contract.NewTool("pay", "", json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":0},"note":{"type":"string"}}}`), nil)
	if err != nil {
		t.Fatal(err)
	}
	lock, err := contract.NewLock([]contract.Tool{old})
	if err != nil {
		t.Fatal(err)
	}
	live := json.RawMessage(`{"type":"object","properties":{"amount":{"type":"integer","minimum":1},"note":{"type":"string","default":"-"},"tip":{"type":"integer"}}}`)
	for _, tc := range []struct {
		name  string
		set   func(*Config)
		tool  string
		want  *envelope.Contract
		isErr bool
	}{
		{"no lock", func(*Config) {}, "pay", nil, false},
		{"default limit", func(c *Config) { c.SetLock(lock) }, "pay", &envelope.Contract{Changes: []envelope.ContractChange{
			{Severity: "BREAKING", Field: "amount", Description: "Minimum raised from 0 to 1", Before: "0", After: "1"},
			{Severity: "RISKY", Field: "note", Description: `Default "-" added`, After: `"-"`},
		}}, false},
		{"limit 1", func(c *Config) { c.SetLock(lock); c.SetContractLimit(1) }, "pay", &envelope.Contract{Changes: []envelope.ContractChange{
			{Severity: "BREAKING", Field: "amount", Description: "Minimum raised from 0 to 1", Before: "0", After: "1"},
		}, More: 1}, false},
		{"another tool", func(c *Config) { c.SetLock(lock) }, "pay2", nil, false},
		{"unreadable lockfile", func(c *Config) { c.SetLockLoader(LockfileLoader(filepath.Join(t.TempDir(), "x.lock"))) }, "pay", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Config
			tc.set(&c)
			l, err := c.LoadLock()
			if (err != nil) != tc.isErr {
				t.Fatalf("LoadLock: %v", err)
			}
			got, err := c.ToolContract(l, tc.tool, "", live, nil)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// A lockfile is read once per loader, however many tools use it.
func TestLockfileLoaderReadsOnce(t *testing.T) {
	path := filepath.Join(t.TempDir(), "selfheal.lock")
	empty, err := contract.NewLock(nil)
	if err != nil {
		t.Fatal(err)
	}
	data, err := empty.Marshal()
	if err == nil {
		err = os.WriteFile(path, data, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	load := LockfileLoader(path)
	a, err := load()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	b, err := load()
	if err != nil || a != b {
		t.Errorf("second load: %p %p %v", a, b, err)
	}
}

package toolcall

import (
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/guard"
)

// The engine given is the engine used, as given: no option of the
// integrations changes its wording; a client's locale switches its
// language per call.
func TestNewConfigEngine(t *testing.T) {
	if c := NewConfig(nil); c.Engine == nil || c.Logger == nil {
		t.Fatalf("defaults: %+v", c)
	}
	e := selfheal.New(selfheal.WithLocale("ja"))
	c := NewConfig([]Option{nil, WithEngine(e)})
	if c.Engine != e || c.EngineFor("") != e {
		t.Error("WithEngine's engine is not the one used")
	}
	if c.EngineFor("de") == e {
		t.Error("a client's locale does not switch the engine")
	}
}

// A tool's own guard takes precedence over the shared one; the last option
// of a kind wins.
func TestGuardFor(t *testing.T) {
	all, one, two := guard.New(guard.Limits{}), guard.New(guard.Limits{}), guard.New(guard.Limits{})
	c := NewConfig([]Option{WithGuard(all), WithGuard(one, "a"), WithGuard(two, "a"), WithGuard(nil, "b")})
	for name, want := range map[string]*guard.Guard{"a": two, "b": nil, "c": all} {
		if got := c.GuardFor(name); got != want {
			t.Errorf("GuardFor(%q) = %p, want %p", name, got, want)
		}
	}
	if g := NewConfig(nil).GuardFor("a"); g != nil {
		t.Errorf("no guard: %p", g)
	}
}

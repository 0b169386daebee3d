package catalog

import "testing"

// The table of small counts must say what the rules say.
func TestSmallForms(t *testing.T) {
	for _, tag := range []string{"en", "ja"} {
		c, err := Parse(tag, []byte(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		for n := range int64(200) {
			if got, want := c.Form(n), c.rule(n); got != want {
				t.Errorf("%v Form(%d) = %v, the rules say %v", c.Tag(), n, got, want)
			}
		}
	}
}

package locales_test

import (
	"fmt"

	"github.com/selfheal/selfheal/locales"
)

func Example() {
	for _, pref := range []string{"ja-JP", "fr-CH, ja;q=0.9", "de", ""} {
		fmt.Println(locales.Match(pref).Tag())
	}
	// Output:
	// ja
	// ja
	// en
	// en
}

package catalog

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/language"
)

// TestEveryLocaleHasEveryKey is what makes adding a language a data-only
// change that cannot silently lose a message: each catalog has exactly
// English's keys, each with the same placeholders.
func TestEveryLocaleHasEveryKey(t *testing.T) {
	en := Default()
	if en.Tag() != language.English {
		t.Fatalf("default catalog is %v, want en", en.Tag())
	}
	for _, lc := range Available()[1:] {
		c := lc
		for _, id := range en.Keys() {
			m := c.Message(id[0], id[1], id[2])
			if m == nil {
				t.Errorf("%v lacks %s", c.Tag(), id)
				continue
			}
			want := en.Message(id[0], id[1], id[2]).Uses()
			if got := m.Uses(); !slices.Equal(got, want) {
				t.Errorf("%v %s uses %v, en uses %v", c.Tag(), id, got, want)
			}
		}
		for _, id := range c.Keys() {
			if en.Message(id[0], id[1], id[2]) == nil {
				t.Errorf("%v has %s, which en does not", c.Tag(), id)
			}
		}
	}
}

func TestShipped(t *testing.T) {
	var tags []string
	for _, c := range Available() {
		tags = append(tags, c.Tag().String())
	}
	if !slices.Equal(tags, []string{"en", "ja"}) {
		t.Errorf("shipped catalogs %v, want [en ja]", tags)
	}
}

func TestMatch(t *testing.T) {
	tests := []struct{ pref, want string }{
		{"", "en"},
		{"en", "en"},
		{"en-GB", "en"},
		{"ja", "ja"},
		{"ja-JP", "ja"},
		{"JA-jp", "ja"},
		{"fr-CH, ja;q=0.9, en;q=0.8", "ja"},
		{"fr-CH, en;q=0.9, ja;q=0.8", "en"},
		{"de", "en"},
		{"*", "en"},
		{"garbage;;;q=zz", "en"},
		{"\x00\xff", "en"},
		{strings.Repeat("ja-", 1000), "en"},
	}
	for _, tt := range tests {
		if got := Match(tt.pref).Tag().String(); got != tt.want {
			t.Errorf("Match(%q) = %s, want %s", tt.pref, got, tt.want)
		}
	}
}

// A preference is read up to 256 bytes: the entries that end within them
// count, the rest is not read; a first entry that does not end within
// them gives English.
func TestMatchLong(t *testing.T) {
	tail := strings.Repeat(", fr;q=0.1", 1<<20/10)       // 1 MiB of entries
	at256 := strings.Repeat("de;q=0.9, ", 25) + "fr, ja" // "ja" ends at byte 256
	at257 := strings.Repeat("de;q=0.9, ", 25) + "fr,  ja"
	if len(at256) != 256 || len(at257) != 257 {
		t.Fatalf("lengths %d and %d, want 256 and 257", len(at256), len(at257))
	}
	tests := []struct{ name, pref, want string }{
		{"ja first, 1 MiB after", "ja" + tail, "ja"},
		{"ja ending at byte 256, 1 MiB after", at256 + tail, "ja"},
		{"ja ending at byte 256, nothing after", at256, "ja"},
		{"ja ending at byte 257, 1 MiB after", at257 + tail, "en"},
		{"ja ending at byte 257, nothing after", at257, "en"},
		{"one 1 MiB tag", "ja-" + strings.Repeat("x", 1<<20), "en"},
		{"a first entry of 257 bytes", "ja-" + strings.Repeat("x", 254) + ", ja", "en"},
	}
	for _, tt := range tests {
		if got := Match(tt.pref).Tag().String(); got != tt.want {
			t.Errorf("%s: Match = %s, want %s", tt.name, got, tt.want)
		}
	}
}

// The memo keeps at most maxMemo preferences, each its own copy of at most
// maxPref bytes, however many clients send what.
func TestMatchMemoIsBounded(t *testing.T) {
	for i := range 3 * maxMemo {
		Match(fmt.Sprintf("x-%d, ", i) + strings.Repeat("fr;q=0.1, ", 100))
	}
	if n := memoLen.Load(); n > maxMemo {
		t.Errorf("the memo holds %d preferences, bound is %d", n, maxMemo)
	}
	n := 0
	memo.Range(func(k, _ any) bool {
		if len(k.(string)) > maxPref {
			t.Errorf("the memo holds a preference of %d bytes, bound is %d", len(k.(string)), maxPref)
		}
		n++
		return true
	})
	if n > maxMemo {
		t.Errorf("the memo holds %d preferences, bound is %d", n, maxMemo)
	}
}

// The memory probe of issue 30: 300 distinct 1 MiB preferences, sent as
// clients send them, leave the heap about as it was. Before the cut and
// the copy, the memo kept the first 256 of them whole.
func TestMatchRetainsLittle(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range 300 {
		var pref string
		if i%2 == 0 { // one tag, cut to nothing
			pref = fmt.Sprintf("x-%d-", i) + strings.Repeat("a", 1<<20)
		} else { // a list, cut to its entries within 256 bytes: distinct keys of about 250
			pref = fmt.Sprintf("x-%d", i) + strings.Repeat(", fr;q=0.1", 1<<20/10)
		}
		Match(pref)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	// The memo holds at most 256 keys of at most 256 bytes with sync.Map's
	// overhead, about 100 KiB (measured: 24 to 31 KB grown, in a process
	// where only this test ran; 257 MiB before the cut and the copy).
	// 4 MiB leaves room for what the runtime and the test framework
	// allocate meanwhile, and is still 1/64 of what the memo used to keep.
	const bound = 4 << 20
	grew := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	if grew > bound {
		t.Errorf("after 300 distinct 1 MiB preferences the heap grew by %.1f MiB (HeapAlloc, after GC); bound is %d MiB", float64(grew)/(1<<20), bound>>20)
	}
	t.Logf("heap growth after 300 distinct 1 MiB preferences: %d bytes (HeapAlloc), HeapInuse %d → %d", grew, before.HeapInuse, after.HeapInuse)
}

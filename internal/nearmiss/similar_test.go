package nearmiss

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal/internal/testkit/race"
)

func TestSameName(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"dry_run", "dryRun", true},
		{"DRYRUN", "dryRun", true},
		{"dry-run", "dryRun", true},
		{"d_r_y_r_u_n", "dryRun", true},
		{"_dryRun_", "dryRun", true},
		{"dryRun", "dryRun", true},
		{"dryrun", "dryRuns", false},
		{"dryrum", "dryRun", false},
		{"", "", true},
		{"_", "", true},
		{"_", "a", false},
		{"Straße", "STRAßE", true}, // non-ASCII bytes compared as they are
	} {
		if got := SameName(tc.a, tc.b); got != tc.want {
			t.Errorf("SameName(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
		if got := SameName(tc.b, tc.a); got != tc.want {
			t.Errorf("SameName(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.want)
		}
	}
}

func TestClosestTable(t *testing.T) {
	opts := []string{"path", "edits", "dryRun", "content", "oldText", "newText"}
	for in, want := range map[string]string{
		"dryrun": "dryRun", "DRYRUN": "dryRun", "dry_run": "dryRun", "dryRn": "dryRun",
		"contents": "content", "contnet": "content", "pth": "path", "oldtext": "oldText",
		"mode": "", "x": "", "": "",
	} {
		got, ok := Closest(in, opts)
		if got != want || ok != (want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestAllocs(t *testing.T) {
	if race.Enabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	opts := []string{"path", "edits", "dryRun", "content", "oldText", "newText"}
	same := false
	if n := testing.AllocsPerRun(100, func() {
		Closest("contnets", opts)
		same = SameName("dry_run", "dryRun")
	}); n != 0 || !same {
		t.Errorf("Closest and SameName allocate %v times per call (SameName: %v)", n, same)
	}
}

// osaDistance is the textbook optimal string alignment distance, ignoring
// ASCII case, over the whole table.
func osaDistance(a, b string) int {
	a, b = strings.ToLower(a), strings.ToLower(b)
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}

// EditDistance computes only a band of its table; it must agree with the
// whole-table textbook definition wherever the distance is within the limit.
func TestEditDistanceMatchesFullTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	word := func() string {
		b := make([]byte, rng.IntN(14))
		for i := range b {
			b[i] = "abcAB_"[rng.IntN(6)]
		}
		return string(b)
	}
	// b is often a with a few random edits, so that small distances,
	// where the limit-1 shortcut answers, come up as often as large ones.
	edit := func(s string) string {
		b := []byte(s)
		for range rng.IntN(3) {
			i := rng.IntN(len(b) + 1)
			switch c := "abcAB_"[rng.IntN(6)]; {
			case rng.IntN(4) == 0 || len(b) == 0:
				b = slices.Insert(b, i, c)
			case i == len(b):
				b = b[:i-1]
			case rng.IntN(3) == 0:
				b = slices.Delete(b, i, i+1)
			case rng.IntN(2) == 0 && i+1 < len(b):
				b[i], b[i+1] = b[i+1], b[i]
			default:
				b[i] = c
			}
		}
		return string(b)
	}
	for n := range 200000 {
		a, b, limit := word(), word(), rng.IntN(6)
		if n%2 == 0 {
			b = edit(a)
		}
		want := osaDistance(a, b)
		if want > limit {
			want = -1
		}
		if got := EditDistance(a, b, limit); got != want {
			t.Fatalf("EditDistance(%q, %q, %d) = %d, want %d", a, b, limit, got, want)
		}
	}
}

// Closest, with its letter-bag filter and shrinking limit, must pick what
// comparing every option by its full distance picks.
func TestClosestMatchesFullComparison(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	word := func() string {
		b := make([]byte, 1+rng.IntN(9))
		for i := range b {
			b[i] = "abcdeAB_"[rng.IntN(8)]
		}
		return string(b)
	}
	for range 50000 {
		s := word()
		opts := make([]string, rng.IntN(6))
		for i := range opts {
			opts[i] = word()
		}
		want, wantOK := "", false
		for _, o := range opts { // case first, as closest does
			if strings.EqualFold(s, o) && s != o {
				want, wantOK = o, true
				break
			}
		}
		if !wantOK {
			bestD := -1
			for _, o := range opts {
				limit := max(len(s), len(o)) / 3
				if d := osaDistance(s, o); o != s && limit > 0 && d <= limit && (bestD < 0 || d < bestD) {
					want, bestD = o, d
				}
			}
			wantOK = bestD >= 0
		}
		if got, ok := Closest(s, opts); got != want || ok != wantOK {
			t.Fatalf("Closest(%q, %q) = %q, %v; want %q, %v", s, opts, got, ok, want, wantOK)
		}
	}
}

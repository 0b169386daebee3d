package nearmiss

import (
	"strings"
)

// Closest returns the option a model most likely meant by s: one that
// differs only in case first, then the one at the smallest edit distance
// (with transpositions: "nmae" finds "name") if at most a third of the
// longer word. ok is false when none is close enough; s itself never is.
func Closest(s string, options []string) (best string, ok bool) {
	for _, o := range options {
		if strings.EqualFold(s, o) && s != o {
			return o, true
		}
	}
	if len(s) > MaxLen {
		return "", false
	}
	bestD := -1
	for _, o := range options {
		if o == s {
			continue
		}
		limit := max(len(s), len(o)) / 3
		if bestD >= 0 {
			limit = min(limit, bestD-1) // only a closer option can win
		}
		if limit <= 0 {
			continue
		}
		d := EditDistance(s, o, limit)
		if d >= 0 && (bestD < 0 || d < bestD) {
			best, bestD = o, d
		}
	}
	return best, bestD >= 0
}

// SameName reports whether a and b are one name written two ways: equal
// once ASCII case is ignored and '_' and '-' are left out ("dry_run",
// "DRY-RUN" and "dryRun" are one name), which an edit distance, charging
// each separator, would find too far apart.
func SameName(a, b string) bool {
	i, j := 0, 0
	for {
		for i < len(a) && (a[i] == '_' || a[i] == '-') {
			i++
		}
		for j < len(b) && (b[j] == '_' || b[j] == '-') {
			j++
		}
		if i == len(a) || j == len(b) {
			return i == len(a) && j == len(b)
		}
		if lower(a[i]) != lower(b[j]) {
			return false
		}
		i, j = i+1, j+1
	}
}

// MaxLen bounds the strings EditDistance compares, so that its table stays
// on the stack; longer names are not worth a suggestion.
const MaxLen = 48

// EditDistance is the optimal string alignment distance between a and b,
// ignoring ASCII case, or -1 when it exceeds limit or a string is longer
// than MaxLen. Only the band of cells within limit of the diagonal is
// computed (a cell outside it is more than limit edits away, and stands as
// limit+1), so that a long list of options costs little.
func EditDistance(a, b string, limit int) int {
	if len(a) > MaxLen || len(b) > MaxLen {
		return -1
	}
	if d := len(a) - len(b); d > limit || -d > limit {
		return -1
	}
	var la, lb [MaxLen]byte
	for i := range len(a) {
		la[i] = lower(a[i])
	}
	for j := range len(b) {
		lb[j] = lower(b[j])
	}
	// uint8 keeps the table small enough that clearing it costs nothing.
	far := uint8(limit + 1)
	var rows [3][MaxLen + 2]uint8
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = uint8(min(j, limit+1))
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		cur[0] = uint8(min(i, limit+1))
		if lo > 1 {
			cur[lo-1] = far // left of the band
		}
		rowMin := cur[0]
		for j := lo; j <= hi; j++ {
			cost := uint8(1)
			if la[i-1] == lb[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && la[i-1] == lb[j-2] && la[i-2] == lb[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		cur[hi+1] = far // right of the band
		if int(rowMin) > limit {
			return -1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	if int(prev[len(b)]) > limit {
		return -1
	}
	return int(prev[len(b)])
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

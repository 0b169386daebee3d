package formatter

import (
	"math"

	"github.com/selfheal/selfheal/internal/nearmiss"
)

// A long list of allowed keys or values costs the model tokens on every
// later turn: past fewListed, a line lists the nearest few to what was sent
// and how many more there are ("'email', 'name', 'role', and 37 more").
// The nearest by spelling is not always the one meant ('husband' is far
// from 'spouse'), so a list of the size of most enums is shown whole.
const (
	fewListed = 10
	nearShown = 3
)

// far is the distance of an option unrelated to what was sent.
const far = math.MaxInt

// appendNearest lists the nearShown of n options with the smallest
// distance, nearest first (ties in the schema's order), then the count of
// the others.
func (s *state) appendNearest(dst []byte, n int, distance func(i int) int, quoted func(i int) bool, write func(dst []byte, i int) []byte) []byte {
	var best [nearShown]int
	var dist [nearShown]int
	k := 0
	for i := range n {
		d := distance(i)
		j := k
		for j > 0 && dist[j-1] > d {
			j--
		}
		if j >= nearShown {
			continue
		}
		if k < nearShown {
			k++
		}
		copy(best[j+1:k], best[j:k-1])
		copy(dist[j+1:k], dist[j:k-1])
		best[j], dist[j] = i, d
	}
	for i := range k {
		if i > 0 {
			dst = appendListSep(dst, quoted(best[i]))
		}
		dst = write(dst, best[i])
	}
	return s.appendMessage(dst, s.m("list.more"), int64(n-k))
}

// keyDistance is the edit distance between a key sent and an allowed one.
func keyDistance(sent, allowed string) int {
	if d := nearmiss.EditDistance(sent, allowed, nearmiss.MaxLen); d >= 0 {
		return d
	}
	return far
}

// valueDistance is how far an allowed value is from the value sent: the
// edit distance between strings, the difference between numbers (capped),
// else far.
func valueDistance(sent, allowed any) int {
	if a, ok := sent.(string); ok {
		if b, ok := allowed.(string); ok {
			return keyDistance(a, b)
		}
		return far
	}
	a, okA := numberOf(sent)
	b, okB := numberOf(allowed)
	if !okA || !okB {
		return far
	}
	d := math.Abs(a - b)
	if math.IsNaN(d) || d >= math.MaxInt32 {
		return math.MaxInt32
	}
	return int(d)
}

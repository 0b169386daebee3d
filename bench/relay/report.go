package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The budgets of docs/ARCHITECTURE.md section 5, each to hold in at least
// minRuns of the runs.
const (
	maxRoundTrip  = 1.1  // proxy ÷ relay
	minThroughput = 0.9  // proxy ÷ relay
	maxStep       = 1.5  // (p90 at 70 KB ÷ p90 at 60 KB) ÷ the relay's
	minHTTP       = 0.95 // proxy ÷ ReverseProxy, requests per second
)

// minRuns is how many of runs a budget must hold in: 5 of 6.
func minRuns(runs int) int { return max(1, runs*5/6) }

type key struct {
	kind string
	size int
	side string
}

// stat is one run's summary of one side's round trips.
type stat struct {
	median, p90 time.Duration
}

type results struct {
	rt map[key][]stat    // per run
	tp map[key][]float64 // MB/s per run
}

func newResults() *results {
	return &results{rt: map[key][]stat{}, tp: map[key][]float64{}}
}

func summarize(times []time.Duration) stat {
	s := slices.Clone(times)
	slices.Sort(s)
	return stat{median: s[len(s)/2], p90: s[min(len(s)-1, len(s)*9/10)]}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratios divides a by b run by run.
func ratios(a, b []float64) []float64 {
	var r []float64
	for i := range min(len(a), len(b)) {
		r = append(r, a[i]/b[i])
	}
	return r
}

func medians(s []stat) []float64 {
	var v []float64
	for _, x := range s {
		v = append(v, float64(x.median))
	}
	return v
}

func p90s(s []stat) []float64 {
	var v []float64
	for _, x := range s {
		v = append(v, float64(x.p90))
	}
	return v
}

// count is how many of v pass ok.
func count(v []float64, ok func(float64) bool) int {
	n := 0
	for _, x := range v {
		if ok(x) {
			n++
		}
	}
	return n
}

// ratioCell is a ratio's median over the runs and its range.
func ratioCell(r []float64) string {
	if len(r) == 0 {
		return "–"
	}
	if len(r) == 1 {
		return fmt.Sprintf("%.2f", r[0])
	}
	return fmt.Sprintf("%.2f (%.2f–%.2f)", median(r), slices.Min(r), slices.Max(r))
}

func dur(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d < time.Millisecond:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", ns/1e6)
	}
	return fmt.Sprintf("%.1f ms", ns/1e6)
}

func sizeName(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + " MB"
	case n >= 1000 && n%1000 == 0:
		return strconv.Itoa(n/1000) + " KB"
	}
	return strconv.Itoa(n) + " B"
}

var kindTitle = map[string]string{
	kindValid:  "Valid calls (arguments of the size; a short result)",
	kindBad:    "Bad calls (arguments of the size, path a number; the server rejects them with -32602)",
	kindResult: "Results (a short call; a result object of the size)",
}

// verdicts collects the budgets' outcomes for the summary.
type verdicts struct {
	held, total int
	failed      []string
}

func (v *verdicts) add(ok bool, what string) {
	v.total++
	if ok {
		v.held++
	} else {
		v.failed = append(v.failed, what)
	}
}

func (v *verdicts) print(w io.Writer, budget string) {
	fmt.Fprintf(w, "%s: holds in %d of %d", budget, v.held, v.total)
	if len(v.failed) > 0 {
		fmt.Fprintf(w, "; not at %s", strings.Join(v.failed, ", "))
	}
	fmt.Fprint(w, ".\n\n")
}

func printRoundTrips(cfg config, res *results) {
	need := minRuns(cfg.runs)
	var v verdicts
	for _, kind := range cfg.kinds {
		sides := cfg.sides(kind)
		fmt.Fprintf(cfg.out, "### Round trip: %s\n\n", kindTitle[kind])
		fmt.Fprintf(cfg.out, "Median of %d runs' medians; ratios: median (range) of the runs' ratios to the relay; ok: runs within %.1f×.\n\n", cfg.runs, maxRoundTrip)
		head := append([]string{"size"}, sides...)
		for _, s := range sides {
			if isProxy(s) {
				head = append(head, s+" ÷ relay", "ok")
			}
		}
		fmt.Fprintf(cfg.out, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, size := range cfg.sizes {
			row := []string{sizeName(size)}
			for _, s := range sides {
				row = append(row, dur(median(medians(res.rt[key{kind, size, s}]))))
			}
			relay := medians(res.rt[key{kind, size, sideRelay}])
			for _, s := range sides {
				if !isProxy(s) {
					continue
				}
				r := ratios(medians(res.rt[key{kind, size, s}]), relay)
				ok := count(r, func(x float64) bool { return x <= maxRoundTrip })
				row = append(row, ratioCell(r), fmt.Sprintf("%d/%d", ok, len(r)))
				if s != sideBefore {
					v.add(ok >= need, fmt.Sprintf("%s %s %s (%s)", kind, sizeName(size), s, ratioCell(r)))
				}
			}
			fmt.Fprintf(cfg.out, "| %s |\n", strings.Join(row, " | "))
		}
		fmt.Fprintln(cfg.out)
	}
	v.print(cfg.out, fmt.Sprintf("Round trip ≤ %.1f × relay in ≥ %d of %d runs", maxRoundTrip, need, cfg.runs))
}

// printStep compares the 90th percentiles on either side of the pipe
// buffer (64 KiB): 60 KB and 70 KB. Crossing it costs every side a little
// (the writer waits for the reader once more); a step is a proxy's ratio
// above maxStep times the relay's in the same run.
func printStep(cfg config, res *results) {
	if !slices.Contains(cfg.sizes, 60_000) || !slices.Contains(cfg.sizes, 70_000) {
		return
	}
	need := minRuns(cfg.runs)
	var v verdicts
	fmt.Fprintf(cfg.out, "### The pipe buffer step: p90 at 70 KB ÷ p90 at 60 KB\n\n")
	fmt.Fprintf(cfg.out, "Medians of %d runs' 90th percentiles; ratios: median (range) over the runs; a step is a proxy's ratio above %.1f × the relay's in the same run.\n\n", cfg.runs, maxStep)
	fmt.Fprintf(cfg.out, "| message | side | p90 60 KB | p90 70 KB | 70 ÷ 60 | ÷ the relay's | runs without a step |\n|---|---|---|---|---|---|---|\n")
	for _, kind := range cfg.kinds {
		relay := ratios(p90s(res.rt[key{kind, 70_000, sideRelay}]), p90s(res.rt[key{kind, 60_000, sideRelay}]))
		for _, s := range cfg.sides(kind) {
			a, b := p90s(res.rt[key{kind, 60_000, s}]), p90s(res.rt[key{kind, 70_000, s}])
			r := ratios(b, a)
			rel, runs := "–", "–"
			if isProxy(s) {
				q := ratios(r, relay)
				ok := count(q, func(x float64) bool { return x <= maxStep })
				rel, runs = ratioCell(q), fmt.Sprintf("%d/%d", ok, len(q))
				if s != sideBefore {
					v.add(ok >= need, fmt.Sprintf("%s %s (%s)", kind, s, rel))
				}
			}
			fmt.Fprintf(cfg.out, "| %s | %s | %s | %s | %s | %s | %s |\n", kind, s, dur(median(a)), dur(median(b)), ratioCell(r), rel, runs)
		}
	}
	fmt.Fprintln(cfg.out)
	v.print(cfg.out, fmt.Sprintf("No step between 60 and 70 KB (p90 ratio ≤ %.1f × the relay's) in ≥ %d of %d runs", maxStep, need, cfg.runs))
}

func printThroughput(cfg config, res *results) {
	need := minRuns(cfg.runs)
	var v verdicts
	fmt.Fprintf(cfg.out, "### Throughput (calls streamed without waiting for answers; MB/s of payload)\n\n")
	fmt.Fprintf(cfg.out, "Median of %d runs; ratios: median (range) of the runs' ratios to the relay; ok: runs at ≥ %.1f×.\n\n", cfg.runs, minThroughput)
	sides := cfg.sides(kindValid)
	head := "| message | size | " + strings.Join(sides, " | ") + " | proxy ÷ relay | ok |"
	if cfg.bins.before != "" {
		head += " before ÷ relay |"
	}
	fmt.Fprintf(cfg.out, "%s\n|%s\n", head, strings.Repeat("---|", strings.Count(head, "|")-1))
	for _, kind := range cfg.kinds {
		if kind == kindBad {
			continue
		}
		for _, size := range cfg.sizes {
			row := []string{kind, sizeName(size)}
			for _, s := range sides {
				row = append(row, mbps(median(res.tp[key{kind, size, s}])))
			}
			r := ratios(res.tp[key{kind, size, sideProxy}], res.tp[key{kind, size, sideRelay}])
			ok := count(r, func(x float64) bool { return x >= minThroughput })
			row = append(row, ratioCell(r), fmt.Sprintf("%d/%d", ok, len(r)))
			if cfg.bins.before != "" {
				row = append(row, ratioCell(ratios(res.tp[key{kind, size, sideBefore}], res.tp[key{kind, size, sideRelay}])))
			}
			v.add(ok >= need, fmt.Sprintf("%s %s (%s)", kind, sizeName(size), ratioCell(r)))
			fmt.Fprintf(cfg.out, "| %s |\n", strings.Join(row, " | "))
		}
	}
	fmt.Fprintln(cfg.out)
	v.print(cfg.out, fmt.Sprintf("Throughput ≥ %.1f × relay in ≥ %d of %d runs", minThroughput, need, cfg.runs))
}

func mbps(x float64) string {
	if x < 10 {
		return fmt.Sprintf("%.2f", x)
	}
	return fmt.Sprintf("%.0f", x)
}

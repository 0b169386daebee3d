package main

import (
	"encoding/json"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// dashboardPath is the Grafana dashboard of the proxy's metrics.
const dashboardPath = "../../docs/grafana/selfheal.json"

var (
	// promQLNoise are the parts of an expression that name no metric:
	// label matchers, ranges, strings, numbers and the grouping lists of
	// by and without.
	promQLNoise = regexp.MustCompile(`\{[^}]*\}|\[[^\]]*\]|"[^"]*"|\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	// promQLNumber is a number, with the character before it.
	promQLNumber = regexp.MustCompile(`(^|[^a-zA-Z0-9_:])[0-9][0-9.]*(?:[eE][+-]?[0-9]+)?`)
	// promQLName is a name, with the "(" after it when it is a function.
	promQLName = regexp.MustCompile(`[a-zA-Z_:][a-zA-Z0-9_:]*\b\s*\(?`)
)

// promQLKeywords are the names of PromQL that are not metrics.
var promQLKeywords = []string{"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring", "group_left", "group_right", "inf", "nan"}

// metricNames returns the metrics an expression queries.
func metricNames(expr string) []string {
	var names []string
	for _, m := range promQLName.FindAllString(promQLNumber.ReplaceAllString(promQLNoise.ReplaceAllString(expr, " "), "${1} "), -1) {
		if strings.HasSuffix(strings.TrimSpace(m), "(") || slices.Contains(promQLKeywords, strings.ToLower(strings.TrimSpace(m))) {
			continue // a function or an aggregation, or a keyword
		}
		names = append(names, strings.TrimSpace(m))
	}
	return names
}

func TestMetricNames(t *testing.T) {
	for _, tc := range []struct{ expr, want string }{
		{`sum by (tool) (rate(a_total{outcome="repaired"}[$__rate_interval])) / sum by (tool) (rate(a_total{outcome=~"x|y"}[5m]))`, "a_total a_total"},
		{`histogram_quantile(0.9, sum by (le) (rate(b_bucket[1m]))) > 1e3 and on (job) c`, "b_bucket c"},
	} {
		if got := strings.Join(metricNames(tc.expr), " "); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.expr, got, tc.want)
		}
	}
}

// TestDashboard: every metric the dashboard queries is one the command
// exports (a histogram by its _bucket, _sum and _count), and it shows
// the repair rate per tool, the answered calls by code, the guards'
// refusals and the proxy's latency.
func TestDashboard(t *testing.T) {
	data, err := os.ReadFile(dashboardPath)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	// Every metric with a value, so that the registry lists them all.
	m := newProxyMetrics()
	m.observe(proxy.Event{Tool: "t", Answered: true, Explained: true, Disagreed: true, Code: "VALIDATION_ERROR", Issues: []string{"too_big"}})
	m.outcome(selfheal.Outcome{Tool: "t", Outcome: "repaired", Attempt: 1})
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	exported := map[string]bool{}
	for _, f := range families {
		name := f.GetName()
		exported[name] = true
		if f.GetType().String() == "HISTOGRAM" {
			exported[name+"_bucket"], exported[name+"_sum"], exported[name+"_count"] = true, true, true
		}
	}
	queried := 0
	var titles []string
	for _, p := range d.Panels {
		titles = append(titles, p.Title)
		for _, target := range p.Targets {
			names := metricNames(target.Expr)
			if len(names) == 0 {
				t.Errorf("panel %q: %q queries no metric", p.Title, target.Expr)
			}
			for _, n := range names {
				queried++
				if !exported[n] {
					t.Errorf("panel %q queries %s, which selfheal proxy --metrics does not export", p.Title, n)
				}
			}
		}
	}
	for _, want := range []string{"Repair rate per tool", "Answered calls by code", "Guards' refusals", "Proxy latency"} {
		if !slices.Contains(titles, want) {
			t.Errorf("no panel %q in %q", want, titles)
		}
	}
	if queried < 10 {
		t.Errorf("only %d metrics queried", queried)
	}
}

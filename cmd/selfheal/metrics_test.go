package main

import (
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// TestProxyMetricsEvents: each kind of event the proxy reports is counted
// where the metrics' help says, a call once whatever became of it, and the
// new counters keep their tool labels bounded as the others do.
func TestProxyMetricsEvents(t *testing.T) {
	many := make([]proxy.Event, maxToolLabels+1)
	for i := range many {
		many[i] = proxy.Event{Tool: fmt.Sprintf("t%d", i), Answered: true, Explained: true, Code: "VALIDATION_ERROR"}
	}
	many = append(many, proxy.Event{Tool: "late", Disagreed: true})
	tests := []struct {
		name   string
		events []proxy.Event
		want   []string // lines of the exposition, whole
		absent []string // no line starts so
	}{
		{"forwarded", []proxy.Event{{Tool: "a"}}, []string{
			`selfheal_proxy_calls_total{tool="a"} 1`,
		}, []string{"selfheal_proxy_answered_total{", "selfheal_proxy_explained_total{", "selfheal_proxy_schema_disagreements_total{"}},
		{"answered before forwarding", []proxy.Event{{Tool: "a", Answered: true, Code: "VALIDATION_ERROR", Issues: []string{"unrecognized_keys"}}}, []string{
			`selfheal_proxy_calls_total{tool="a"} 1`,
			`selfheal_proxy_answered_total{code="VALIDATION_ERROR",tool="a"} 1`,
			`selfheal_proxy_issues_total{code="unrecognized_keys"} 1`,
		}, []string{"selfheal_proxy_explained_total{", "selfheal_proxy_schema_disagreements_total{"}},
		{"explained", []proxy.Event{{Tool: "b", Answered: true, Explained: true, Code: "VALIDATION_ERROR", Issues: []string{"too_small", "invalid_type"}}}, []string{
			`selfheal_proxy_calls_total{tool="b"} 1`,
			`selfheal_proxy_answered_total{code="VALIDATION_ERROR",tool="b"} 1`,
			`selfheal_proxy_explained_total{tool="b"} 1`,
			`selfheal_proxy_issues_total{code="too_small"} 1`,
			`selfheal_proxy_issues_total{code="invalid_type"} 1`,
		}, []string{"selfheal_proxy_schema_disagreements_total{"}},
		{"disagreed", []proxy.Event{{Tool: "b", Disagreed: true}, {Tool: "b", Disagreed: true}}, []string{
			`selfheal_proxy_calls_total{tool="b"} 2`,
			`selfheal_proxy_schema_disagreements_total{tool="b"} 2`,
		}, []string{"selfheal_proxy_answered_total{", "selfheal_proxy_explained_total{", "selfheal_proxy_issues_total{"}},
		{"tool labels bounded", many, []string{
			`selfheal_proxy_explained_total{tool="t0"} 1`,
			`selfheal_proxy_explained_total{tool="other"} 1`,
			`selfheal_proxy_schema_disagreements_total{tool="other"} 1`,
		}, []string{`selfheal_proxy_explained_total{tool="t1000"}`, `selfheal_proxy_schema_disagreements_total{tool="late"}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := newProxyMetrics()
			for _, e := range tt.events {
				m.observe(e)
			}
			rec := httptest.NewRecorder()
			m.handler().ServeHTTP(rec, httptest.NewRequest("GET", metricsPath, nil))
			body, _ := io.ReadAll(rec.Result().Body)
			lines := strings.Split(string(body), "\n")
			for _, want := range tt.want {
				found := false
				for _, l := range lines {
					found = found || l == want
				}
				if !found {
					t.Errorf("no line %q", want)
				}
			}
			for _, l := range lines {
				for _, a := range tt.absent {
					if strings.HasPrefix(l, a) {
						t.Errorf("unexpected line %q", l)
					}
				}
			}
		})
	}
}

// TestProxyMetricsOutcomes: each settled answer is counted by tool and
// outcome, and a repair's retries go to the histogram (repairs only).
func TestProxyMetricsOutcomes(t *testing.T) {
	m := newProxyMetrics()
	for _, o := range []selfheal.Outcome{
		{Tool: "a", Outcome: "failed_same", Attempt: 1},
		{Tool: "a", Outcome: "repaired", Attempt: 2},
		{Tool: "a", Outcome: "repaired", Attempt: 1},
		{Tool: "b", Outcome: "abandoned", Attempt: 1},
	} {
		m.outcome(o)
	}
	rec := httptest.NewRecorder()
	m.handler().ServeHTTP(rec, httptest.NewRequest("GET", metricsPath, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	var got []string
	for _, l := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(l, "selfheal_repair") {
			got = append(got, l)
		}
	}
	want := []string{
		`selfheal_repair_attempts_bucket{le="1"} 1`,
		`selfheal_repair_attempts_bucket{le="2"} 2`,
		`selfheal_repair_attempts_bucket{le="3"} 2`,
		`selfheal_repair_attempts_bucket{le="4"} 2`,
		`selfheal_repair_attempts_bucket{le="5"} 2`,
		`selfheal_repair_attempts_bucket{le="8"} 2`,
		`selfheal_repair_attempts_bucket{le="+Inf"} 2`,
		`selfheal_repair_attempts_sum 3`,
		`selfheal_repair_attempts_count 2`,
		`selfheal_repairs_total{outcome="abandoned",tool="b"} 1`,
		`selfheal_repairs_total{outcome="failed_same",tool="a"} 1`,
		`selfheal_repairs_total{outcome="repaired",tool="a"} 2`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

package main

import (
	"context"
	"errors"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/selfheal/selfheal"
	"github.com/selfheal/selfheal/mcp/proxy"
)

// The bounds of the metrics' labels: a label takes at most so many distinct
// values, then "other", so that a server listing tools without end (or a
// client inventing codes) cannot grow the proxy's memory or a Prometheus
// server's.
const (
	maxToolLabels = 1000
	maxCodeLabels = 100
	otherLabel    = "other"
	metricsPath   = "/metrics"
	metricsPrefix = "selfheal_proxy_"
)

// proxyMetrics are the Prometheus metrics of `selfheal proxy --metrics`,
// fed by proxy.WithObserver and, in front of an HTTP server, by a transport
// wrapper. They live in a registry of their own (with the Go runtime's and
// the process's collectors), never in the global one.
type proxyMetrics struct {
	reg            *prometheus.Registry
	calls          *prometheus.CounterVec // tool
	answered       *prometheus.CounterVec // tool, code
	issues         *prometheus.CounterVec // code
	explained      *prometheus.CounterVec // tool
	disagreements  *prometheus.CounterVec // tool
	latency        prometheus.Histogram
	upstreamErrors prometheus.Counter
	repairs        *prometheus.CounterVec // tool, outcome
	attempts       prometheus.Histogram

	tools, codes, issueCodes *labelSet
}

func newProxyMetrics() *proxyMetrics {
	m := &proxyMetrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricsPrefix + "calls_total",
			Help: "Tool calls of listed tools checked by the proxy, forwarded or answered.",
		}, []string{"tool"}),
		answered: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricsPrefix + "answered_total",
			Help: "Tool calls answered by the proxy itself, by code: VALIDATION_ERROR for bad arguments (before forwarding, or in place of the server's rejection: see explained_total), SERVER_BUSY or RATE_LIMITED from the limits.",
		}, []string{"tool", "code"}),
		issues: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricsPrefix + "issues_total",
			Help: "Issues of the validation errors answered, by issue code (invalid_type, too_small, unrecognized_keys...).",
		}, []string{"code"}),
		explained: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricsPrefix + "explained_total",
			Help: "Tool calls the server rejected whose client got selfheal's validation_error in place of the server's answer; counted in answered_total too.",
		}, []string{"tool"}),
		// A tool whose calls the server keeps accepting against its schema
		// advertises a schema stricter than the server: worth an alert, since
		// --strict would refuse those calls.
		disagreements: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: metricsPrefix + "schema_disagreements_total",
			Help: "Tool calls the tool's schema found issues in and the server accepted: the server's result passed untouched.",
		}, []string{"tool"}),
		latency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: metricsPrefix + "added_latency_seconds",
			Help: "Time the proxy spent on a tool call: checking it, and answering or forwarding it; not the server's time, nor the time waiting for a slot.",
			// 1µs to 10s, about ×2.6 apart: a valid call costs
			// microseconds, a relayed one milliseconds.
			Buckets: prometheus.ExponentialBucketsRange(1e-6, 10, 18),
		}),
		upstreamErrors: prometheus.NewCounter(prometheus.CounterOpts{
			Name: metricsPrefix + "upstream_errors_total",
			Help: "Requests to the upstream MCP server (--upstream) that failed: no response, or a 5xx status. Always 0 in front of a stdio server.",
		}),
		// Named as issue 40 names it, without the proxy_ prefix: the
		// repair rate is selfheal's figure, whoever answers.
		repairs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "selfheal_repairs_total",
			Help: "Answers to bad tool calls, by how the session's next call of the tool settled them: repaired (accepted), failed_same (answered again on the same fields), failed_other (on other fields), abandoned (no call of the tool within 5 minutes, or the session ended).",
		}, []string{"tool", "outcome"}),
		attempts: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "selfheal_repair_attempts",
			Help:    "Retries a repaired call took: 1 when the call after the first answer was accepted.",
			Buckets: []float64{1, 2, 3, 4, 5, 8},
		}),
		tools:      newLabelSet(maxToolLabels),
		codes:      newLabelSet(maxCodeLabels),
		issueCodes: newLabelSet(maxCodeLabels),
	}
	m.reg.MustRegister(m.calls, m.answered, m.issues, m.explained, m.disagreements, m.latency, m.upstreamErrors, m.repairs, m.attempts,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// observe is the proxy's observer (proxy.WithObserver): it counts one call.
func (m *proxyMetrics) observe(e proxy.Event) {
	tool := m.tools.label(e.Tool)
	m.calls.WithLabelValues(tool).Inc()
	if e.Answered {
		m.answered.WithLabelValues(tool, m.codes.label(e.Code)).Inc()
	}
	if e.Explained {
		m.explained.WithLabelValues(tool).Inc()
	}
	if e.Disagreed {
		m.disagreements.WithLabelValues(tool).Inc()
	}
	for _, code := range e.Issues {
		m.issues.WithLabelValues(m.issueCodes.label(code)).Inc()
	}
	m.latency.Observe(e.Duration.Seconds())
}

// outcome is the proxy's report of outcomes (proxy.WithOutcomes): it
// counts how one answer settled, and the retries of a repair.
func (m *proxyMetrics) outcome(o selfheal.Outcome) {
	m.repairs.WithLabelValues(m.tools.label(o.Tool), o.Outcome).Inc()
	if o.Outcome == repairedOutcome {
		m.attempts.Observe(float64(o.Attempt))
	}
}

// repairedOutcome is selfheal.Outcome's Outcome of an answer whose next call
// was accepted.
const repairedOutcome = "repaired"

// transport wraps rt so that the requests to the upstream server that fail
// (no response, or a 5xx status) are counted. A request its own client
// cancelled (the MCP client went away) is not the server's failure.
func (m *proxyMetrics) transport(rt http.RoundTripper) http.RoundTripper {
	return &countingTransport{rt: rt, errs: m.upstreamErrors}
}

// handler serves the metrics in Prometheus's text format (or OpenMetrics
// when asked).
func (m *proxyMetrics) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle(metricsPath, promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg}))
	return mux
}

type countingTransport struct {
	rt   http.RoundTripper
	errs prometheus.Counter
}

func (t *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(r)
	switch {
	case err != nil:
		if !errors.Is(err, context.Canceled) || r.Context().Err() == nil {
			t.errs.Inc()
		}
	case resp.StatusCode >= 500:
		t.errs.Inc()
	}
	return resp, err
}

// labelSet bounds the distinct values of a label: the first max values seen
// are kept as they are, any later one is otherLabel.
type labelSet struct {
	mu   sync.RWMutex
	seen map[string]struct{}
	max  int
}

func newLabelSet(max int) *labelSet {
	return &labelSet{seen: map[string]struct{}{}, max: max}
}

func (s *labelSet) label(v string) string {
	s.mu.RLock()
	_, ok := s.seen[v]
	s.mu.RUnlock()
	if ok {
		return v
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.seen[v]; ok {
		return v
	}
	if len(s.seen) >= s.max {
		return otherLabel
	}
	s.seen[v] = struct{}{}
	return v
}

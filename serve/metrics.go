package serve

import (
	"net/http"
	"runtime/debug"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/tessera-dev/tessera"
)

// metrics are the server's Prometheus metrics, in a registry of its own.
type metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	resolutions *prometheus.CounterVec
	refreshes   *prometheus.CounterVec
	lastRefresh prometheus.Gauge
	assembly    prometheus.Histogram
	auditWrites *prometheus.CounterVec
	replays     *prometheus.CounterVec
	handler     http.Handler
}

func newMetrics() *metrics {
	m := &metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_http_requests_total", Help: "HTTP requests answered, by route, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "tessera_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10},
		}, []string{"route"}),
		resolutions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_prompt_resolutions_total", Help: "Prompts resolved, by what selected them (label, version, commit) and outcome.",
		}, []string{"by", "outcome"}),
		refreshes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "tessera_git_refresh_total", Help: "Reads of the Git repository, by outcome.",
		}, []string{"outcome"}),
		lastRefresh: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "tessera_git_last_refresh_timestamp_seconds", Help: "When the repository was last read successfully, in Unix seconds.",
		}),
	}
	m.assembly = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "tessera_assembly_duration_seconds", Help: "Time to assemble a prompt for a render or a replay.",
		Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1},
	})
	m.auditWrites = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tessera_audit_writes_total", Help: "Audit records written, by store and outcome.",
	}, []string{"store", "outcome"})
	m.replays = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "tessera_replays_total", Help: "Replays of audit records, by result: match, mismatch, tampered or failed.",
	}, []string{"result"})
	info := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "tessera_build_info", Help: "Always 1; its labels say which build this is.",
		ConstLabels: prometheus.Labels{"version": tessera.Version, "goversion": goVersion()},
	})
	info.Set(1)
	m.reg.MustRegister(m.requests, m.duration, m.resolutions, m.refreshes, m.lastRefresh, m.assembly, m.auditWrites, m.replays, info)
	for _, r := range []string{"match", "mismatch", "tampered", "failed"} {
		m.replays.WithLabelValues(r)
	}
	for _, by := range []string{"label", "version", "commit"} {
		for _, o := range []string{"ok", "not_found", "error"} {
			m.resolutions.WithLabelValues(by, o)
		}
	}
	for _, o := range []string{"ok", "error"} {
		m.refreshes.WithLabelValues(o)
	}
	m.handler = promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
	return m
}

func goVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown"
}

// serve answers GET /metrics.
func (m *metrics) serve(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }

// instrument counts and times h's requests under route.
func (m *metrics) instrument(route string, h http.Handler) http.Handler {
	dur := m.duration.WithLabelValues(route)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := &statusWriter{ResponseWriter: w, code: http.StatusOK}
		h.ServeHTTP(sw, r)
		dur.Observe(time.Since(start).Seconds())
		method := r.Method
		switch method {
		case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPatch, http.MethodDelete, http.MethodPut, http.MethodOptions:
		default:
			method = "other" // keeps the label's values few
		}
		m.requests.WithLabelValues(route, method, strconv.Itoa(sw.code)).Inc()
	})
}

func (m *metrics) resolved(by, outcome string) { m.resolutions.WithLabelValues(by, outcome).Inc() }

func (m *metrics) refresh(outcome string) { m.refreshes.WithLabelValues(outcome).Inc() }

func (m *metrics) refreshed(at time.Time) {
	m.refresh("ok")
	m.lastRefresh.Set(float64(at.UnixNano()) / 1e9)
}

// statusWriter remembers the status code written.
type statusWriter struct {
	http.ResponseWriter
	code  int
	wrote bool
}

func (w *statusWriter) WriteHeader(code int) {
	if !w.wrote {
		w.code, w.wrote = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap gives http.ResponseController the writer underneath.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// auditWrite counts one write of an audit record to store.
func (m *metrics) auditWrite(store string, err error) {
	outcome := "ok"
	if err != nil {
		outcome = "error"
	}
	m.auditWrites.WithLabelValues(store, outcome).Inc()
}

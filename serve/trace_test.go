package serve_test

import (
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/tessera-dev/tessera/serve"
)

func TestSpans(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { tp.Shutdown(t.Context()) })
	f := newFixture(t, serve.Config{TracerProvider: tp})
	var p promptJSON
	f.get(promptPath(pgc)+"?label=latest", &p)
	code, _, body := f.do(member, "POST", "/api/tessera/v1/render", map[string]any{"name": pgc, "version": 2})
	if code != 200 {
		t.Fatalf("render: %d %s", code, body)
	}
	attrs := map[string]map[string]string{}
	for _, s := range exp.GetSpans() {
		m := map[string]string{}
		for _, kv := range s.Attributes {
			m[string(kv.Key)] = kv.Value.String()
		}
		attrs[s.Name] = m
	}
	fetch := attrs["GET /api/public/v2/prompts/{name}"]
	want := map[string]string{"gen_ai.prompt.name": pgc, "gen_ai.prompt.version": "3", "tessera.prompt.hash": p.Hash, "tessera.prompt.commit": p.Commit, "tessera.prompt.label": "latest", "http.response.status_code": "200"}
	for k, v := range want {
		if fetch[k] != v {
			t.Errorf("fetch span: %s = %q, want %q (all: %v)", k, fetch[k], v, fetch)
		}
	}
	asm := attrs["tessera.assemble"]
	if asm["gen_ai.prompt.version"] != "2" || asm["tessera.audit.id"] == "" || asm["tessera.prompt.label"] != "" {
		t.Errorf("assemble span: %v", asm)
	}
	if _, ok := attrs["POST /api/tessera/v1/render"]; !ok {
		t.Errorf("no render span: %v", attrs)
	}
	// A traceparent header continues the caller's trace.
	exp.Reset()
	req, _ := http.NewRequest("GET", f.ts.URL+"/healthz", nil)
	req.Header.Set("traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	resp, err := f.ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	spans := exp.GetSpans()
	if len(spans) != 1 || spans[0].SpanContext.TraceID().String() != "0af7651916cd43dd8448eb211c80319c" {
		t.Errorf("traceparent not continued: %+v", spans)
	}
}

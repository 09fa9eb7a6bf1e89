package serve

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/tessera-dev/tessera/serve/registry"
)

// Span attributes of a resolved prompt: the GenAI semantic conventions'
// prompt name and version, and Tessera's own for what they have no name
// for.
const (
	attrPromptName    = attribute.Key("gen_ai.prompt.name")
	attrPromptVersion = attribute.Key("gen_ai.prompt.version")
	attrPromptHash    = attribute.Key("tessera.prompt.hash")
	attrPromptCommit  = attribute.Key("tessera.prompt.commit")
	attrPromptLabel   = attribute.Key("tessera.prompt.label")
)

// tracerName names the server's tracer.
const tracerName = "github.com/tessera-dev/tessera/serve"

var propagator = propagation.TraceContext{}

// traced starts a server span named after route around h, continuing a
// trace the request's traceparent header carries.
func (s *Server) traced(route string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))
		ctx, span := s.tracer.Start(ctx, r.Method+" "+route, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("http.request.method", r.Method), attribute.String("http.route", route)))
		defer span.End()
		sw, ok := w.(*statusWriter)
		h.ServeHTTP(w, r.WithContext(ctx))
		if ok {
			span.SetAttributes(attribute.Int("http.response.status_code", sw.code))
			if sw.code >= 500 {
				span.SetStatus(codes.Error, strconv.Itoa(sw.code))
			}
		}
	})
}

// tracePrompt puts what res resolved to on the request's span; label is
// the label asked for, if any.
func tracePrompt(ctx context.Context, res *registry.Resolved, label string) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	span.SetAttributes(
		attrPromptName.String(res.Name),
		attrPromptVersion.String(strconv.Itoa(res.Version)),
		attrPromptHash.String(res.Prompt.Result.Prompt.Hash),
		attrPromptCommit.String(res.Commit.String()),
	)
	if label != "" {
		span.SetAttributes(attrPromptLabel.String(label))
	}
}

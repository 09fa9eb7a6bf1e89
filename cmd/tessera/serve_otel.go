package main

import (
	"context"
	"fmt"
	"os"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// tracerProvider returns the tracer provider of serve's spans: an OTLP
// exporter over HTTP when the usual environment variables name an
// endpoint (OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, with the exporter's other
// OTEL_EXPORTER_OTLP_* settings), unless OTEL_TRACES_EXPORTER is "none";
// nil otherwise. shutdown flushes the spans still buffered.
func tracerProvider(ctx context.Context) (tp trace.TracerProvider, shutdown func(context.Context) error, err error) {
	none := func(context.Context) error { return nil }
	if os.Getenv("OTEL_TRACES_EXPORTER") == "none" ||
		os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
		return nil, none, nil
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, none, fmt.Errorf("OTLP trace exporter (OTEL_EXPORTER_OTLP_*): %w", err)
	}
	res := resource.Default()
	if os.Getenv("OTEL_SERVICE_NAME") == "" {
		if merged, err := resource.Merge(res, resource.NewSchemaless(attribute.String("service.name", "tessera"))); err == nil {
			res = merged
		}
	}
	p := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return p, p.Shutdown, nil
}

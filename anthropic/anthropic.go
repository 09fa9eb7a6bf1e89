// Package anthropic hands Tessera's Anthropic Messages request bodies to
// the official Go SDK, github.com/anthropics/anthropic-sdk-go.
//
// The core package provider writes the bodies with the standard library;
// this package, a module of its own so that the core imports no SDK,
// decodes a body into the SDK's parameter type:
//
//	body, err := provider.Encode(provider.Anthropic, req, provider.Options{CacheBreakpoints: true})
//	...
//	params, err := anthropic.MessageParams(body)
//	...
//	message, err := client.Messages.New(ctx, params)
//
// The SDK keeps schemas in Go maps, which would send their properties in
// alphabetical order; the parameters returned here carry each tool's
// input schema and the output schema as the raw JSON of the body instead,
// so the order written is the order sent. Cache breakpoints
// (cache_control) survive the decoding.
package anthropic

import (
	"encoding/json"
	"fmt"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
)

// MessageParams decodes a body encoded for provider.Anthropic into the
// parameters of client.Messages.New. The model is the body's; set
// params.Model when the request had none.
func MessageParams(b provider.Body) (sdk.MessageNewParams, error) {
	var p sdk.MessageNewParams
	if b.Format != provider.Anthropic {
		return p, fmt.Errorf("anthropic: the body is for %s, not anthropic: encode the request with provider.Encode(anthropic, ...)", b.Format)
	}
	doc, err := schema.Parse(b.JSON)
	if err != nil {
		return p, fmt.Errorf("anthropic: anthropic body: %w", err)
	}
	if err := json.Unmarshal(b.JSON, &p); err != nil {
		return p, fmt.Errorf("anthropic: decoding the body into the SDK's parameters: %w", err)
	}
	tools := doc.Get("tools")
	for i := range p.Tools {
		t := p.Tools[i].OfTool
		if t == nil || tools == nil || i >= len(tools.Items) {
			return p, fmt.Errorf("anthropic: tool %d of the body did not decode as a custom tool", i+1)
		}
		if raw := tools.Items[i].Raw("input_schema"); raw != nil {
			t.SetExtraFields(map[string]any{"input_schema": raw})
		}
	}
	if raw := doc.Raw("output_config", "format", "schema"); raw != nil {
		p.OutputConfig.Format.SetExtraFields(map[string]any{"schema": raw})
	}
	return p, nil
}

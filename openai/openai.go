// Package openai hands Tessera's OpenAI request bodies to the official Go
// SDK, github.com/openai/openai-go/v3.
//
// The core package provider writes the bodies with the standard library;
// this package, a module of its own so that the core imports no SDK,
// decodes a body into the SDK's parameter types:
//
//	body, err := provider.Encode(provider.OpenAIChat, req, provider.Options{})
//	...
//	params, err := openai.ChatCompletionParams(body)
//	...
//	completion, err := client.Chat.Completions.New(ctx, params)
//
// The SDK keeps schemas in Go maps, which would send their properties in
// alphabetical order; the parameters returned here carry each schema as
// the raw JSON of the body instead, so the order written is the order
// sent.
//
// Embedder embeds texts with the embeddings API for the layered preset's
// selection, one request per assembly.
package openai

import (
	"encoding/json"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
)

// ChatCompletionParams decodes a body encoded for provider.OpenAIChat
// into the parameters of client.Chat.Completions.New. The model is the
// body's; set params.Model when the request had none.
func ChatCompletionParams(b provider.Body) (sdk.ChatCompletionNewParams, error) {
	var p sdk.ChatCompletionNewParams
	doc, err := decode(b, provider.OpenAIChat, &p)
	if err != nil {
		return p, err
	}
	tools := doc.Get("tools")
	for i := range p.Tools {
		fn := p.Tools[i].OfFunction
		if fn == nil || tools == nil || i >= len(tools.Items) {
			return p, fmt.Errorf("openai: tool %d of the body did not decode as a function", i+1)
		}
		if raw := tools.Items[i].Raw("function", "parameters"); raw != nil {
			fn.Function.SetExtraFields(map[string]any{"parameters": raw})
		}
	}
	if f := p.ResponseFormat.OfJSONSchema; f != nil {
		if raw := doc.Raw("response_format", "json_schema", "schema"); raw != nil {
			f.JSONSchema.Schema = raw
		}
	}
	return p, nil
}

// ResponseParams decodes a body encoded for provider.OpenAIResponses into
// the parameters of client.Responses.New. The model is the body's; set
// params.Model when the request had none.
func ResponseParams(b provider.Body) (responses.ResponseNewParams, error) {
	var p responses.ResponseNewParams
	doc, err := decode(b, provider.OpenAIResponses, &p)
	if err != nil {
		return p, err
	}
	tools := doc.Get("tools")
	for i := range p.Tools {
		fn := p.Tools[i].OfFunction
		if fn == nil || tools == nil || i >= len(tools.Items) {
			return p, fmt.Errorf("openai: tool %d of the body did not decode as a function", i+1)
		}
		if raw := tools.Items[i].Raw("parameters"); raw != nil {
			fn.SetExtraFields(map[string]any{"parameters": raw})
		}
	}
	if f := p.Text.Format.OfJSONSchema; f != nil {
		if raw := doc.Raw("text", "format", "schema"); raw != nil {
			f.SetExtraFields(map[string]any{"schema": raw})
		}
	}
	if in := doc.Get("input"); in != nil && len(p.Input.OfInputItemList) != len(in.Items) {
		return p, fmt.Errorf("openai: the body has %d input items but %d decoded: each needs \"type\": \"message\"", len(in.Items), len(p.Input.OfInputItemList))
	}
	return p, nil
}

// decode checks that b is for format want and decodes it into params,
// returning the body as an ordered JSON value for the schemas.
func decode(b provider.Body, want provider.Format, params any) (schema.Value, error) {
	if b.Format != want {
		return schema.Value{}, fmt.Errorf("openai: the body is for %s, not %s: encode the request with provider.Encode(%s, ...)", b.Format, want, want)
	}
	doc, err := schema.Parse(b.JSON)
	if err != nil {
		return doc, fmt.Errorf("openai: %s body: %w", want, err)
	}
	if err := json.Unmarshal(b.JSON, params); err != nil {
		return doc, fmt.Errorf("openai: decoding the %s body into the SDK's parameters: %w", want, err)
	}
	return doc, nil
}

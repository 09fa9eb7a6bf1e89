// Package gemini hands Tessera's Gemini generateContent request bodies to
// the official Go SDK, google.golang.org/genai.
//
// The core package provider writes the REST body with the standard
// library; this package, a module of its own so that the core imports no
// SDK, splits a body into the arguments of client.Models.GenerateContent:
//
//	body, err := provider.Encode(provider.Gemini, req, provider.Options{})
//	...
//	contents, config, err := gemini.GenerateContentArgs(body)
//	...
//	resp, err := client.Models.GenerateContent(ctx, "gemini-2.5-flash", contents, config)
//
// The model is an argument of the call (and part of the REST URL), never
// part of the body. The SDK builds its request through Go maps, which
// would send every schema's properties in alphabetical order; the config
// returned here carries an HTTPOptions.ExtrasRequestProvider that puts
// each schema back as the body has it, so the order written is the order
// sent. Keep it when you set other HTTP options on the config.
package gemini

import (
	"encoding/json"
	"fmt"

	"github.com/tessera-dev/tessera/provider"
	"github.com/tessera-dev/tessera/schema"
	"google.golang.org/genai"
)

// body is the part of the REST request Encode writes.
type body struct {
	Contents          []*genai.Content `json:"contents"`
	SystemInstruction *genai.Content   `json:"systemInstruction"`
	Tools             []*genai.Tool    `json:"tools"`
	GenerationConfig  *struct {
		ResponseMIMEType string `json:"responseMimeType"`
		MaxOutputTokens  int32  `json:"maxOutputTokens"`
	} `json:"generationConfig"`
}

// mapped lists, for each object of the body this package reads, the keys
// it carries over; anything else would be lost, so it is an error.
var mapped = []struct {
	object string
	keys   []string
}{
	{"", []string{"contents", "systemInstruction", "tools", "generationConfig"}},
	{"generationConfig", []string{"responseMimeType", "responseJsonSchema", "maxOutputTokens"}},
}

// GenerateContentArgs decodes a body encoded for provider.Gemini into the
// contents and config of client.Models.GenerateContent: the body's
// systemInstruction, tools and generationConfig (responseMimeType,
// responseJsonSchema, maxOutputTokens) become the config's fields of the
// same names. A body with other fields is refused rather than sent without
// them.
func GenerateContentArgs(b provider.Body) ([]*genai.Content, *genai.GenerateContentConfig, error) {
	if b.Format != provider.Gemini {
		return nil, nil, fmt.Errorf("gemini: the body is for %s, not gemini: encode the request with provider.Encode(gemini, ...)", b.Format)
	}
	doc, err := schema.Parse(b.JSON)
	if err != nil {
		return nil, nil, fmt.Errorf("gemini: gemini body: %w", err)
	}
	for _, m := range mapped {
		v := &doc
		if m.object != "" {
			v = doc.Get(m.object)
		}
		if v == nil {
			continue
		}
		if err := onlyKeys(v, m.object, m.keys); err != nil {
			return nil, nil, err
		}
	}
	var in body
	if err := json.Unmarshal(b.JSON, &in); err != nil {
		return nil, nil, fmt.Errorf("gemini: decoding the body into the SDK's types: %w", err)
	}
	config := &genai.GenerateContentConfig{SystemInstruction: in.SystemInstruction, Tools: in.Tools}
	var order ordered
	if tools := doc.Get("tools"); tools != nil {
		for i, t := range in.Tools {
			decls := tools.Items[i].Get("functionDeclarations")
			for j, d := range t.FunctionDeclarations {
				if decls == nil || j >= len(decls.Items) {
					break
				}
				if raw := decls.Items[j].Raw("parametersJsonSchema"); raw != nil {
					d.ParametersJsonSchema = raw
					order.params = append(order.params, param{i, j, raw})
				}
			}
		}
	}
	if gc := in.GenerationConfig; gc != nil {
		config.ResponseMIMEType = gc.ResponseMIMEType
		config.MaxOutputTokens = gc.MaxOutputTokens
		if raw := doc.Raw("generationConfig", "responseJsonSchema"); raw != nil {
			config.ResponseJsonSchema = raw
			order.response = raw
		}
	}
	if len(order.params) > 0 || order.response != nil {
		config.HTTPOptions = &genai.HTTPOptions{ExtrasRequestProvider: order.restore}
	}
	return in.Contents, config, nil
}

// ordered holds a body's schemas as written, to put back into the
// request the SDK builds: the SDK passes its parameters through Go maps,
// which would send every schema's properties in alphabetical order.
type ordered struct {
	params   []param
	response json.RawMessage
}

// param is the parameters schema of declaration decl of tool tool.
type param struct {
	tool, decl int
	raw        json.RawMessage
}

// restore is an ExtrasRequestProvider: it replaces each schema in the
// request body with the raw JSON of the Tessera body.
func (o ordered) restore(body map[string]any) map[string]any {
	for _, p := range o.params {
		tool := object(body["tools"], p.tool)
		if d := object(tool["functionDeclarations"], p.decl); d != nil {
			d["parametersJsonSchema"] = p.raw
		}
	}
	if o.response != nil {
		if gc, ok := body["generationConfig"].(map[string]any); ok {
			gc["responseJsonSchema"] = o.response
		}
	}
	return body
}

// object returns element i of list, a slice of objects in either of the
// forms the SDK builds, or nil.
func object(list any, i int) map[string]any {
	switch l := list.(type) {
	case []map[string]any:
		if i < len(l) {
			return l[i]
		}
	case []any:
		if i < len(l) {
			m, _ := l[i].(map[string]any)
			return m
		}
	}
	return nil
}

// onlyKeys reports the first member of the object v not in keys.
func onlyKeys(v *schema.Value, name string, keys []string) error {
	for _, m := range v.Members {
		known := false
		for _, k := range keys {
			known = known || m.Key == k
		}
		if !known {
			where := "the body"
			if name != "" {
				where = name
			}
			return fmt.Errorf("gemini: %s has %q, which this package does not carry over to the SDK: set it on the config yourself", where, m.Key)
		}
	}
	return nil
}

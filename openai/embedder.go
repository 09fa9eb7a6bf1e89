package openai

import (
	"context"
	"fmt"

	sdk "github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/packages/param"

	"github.com/tessera-dev/tessera/embed"
)

// Embedder embeds texts with OpenAI's embeddings API, for the layered
// preset's selection (it implements embed.Embedder): one request per
// Embed call, however many texts it holds, so an assembly costs one
// request.
//
//	client := sdk.NewClient() // OPENAI_API_KEY from the environment
//	a := &layered.Assembler{Setup: setup, Embedder: &openai.Embedder{Client: &client, Model: "text-embedding-3-small"}}
//
// Vectors from it are only compared with vectors of the same Name; the
// thresholds in layered.yaml suit the lexical embedder and want tuning
// for this one (semantic similarities run higher).
type Embedder struct {
	// Client is the SDK client.
	Client *sdk.Client
	// Model is the embedding model, such as "text-embedding-3-small".
	Model string
	// Dimensions, when set, asks text-embedding-3 models for shorter
	// vectors.
	Dimensions int
}

// Name implements embed.Embedder: "openai/<model>", with "/<dimensions>"
// when set.
func (e *Embedder) Name() string {
	if e.Dimensions > 0 {
		return fmt.Sprintf("openai/%s/%d", e.Model, e.Dimensions)
	}
	return "openai/" + e.Model
}

// Embed implements embed.Embedder with one request for all texts. An
// empty text (which the API refuses) is sent as a single space.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([]embed.Vector, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	in := make([]string, len(texts))
	for i, t := range texts {
		if t == "" {
			t = " "
		}
		in[i] = t
	}
	p := sdk.EmbeddingNewParams{
		Input:          sdk.EmbeddingNewParamsInputUnion{OfArrayOfStrings: in},
		Model:          sdk.EmbeddingModel(e.Model),
		EncodingFormat: sdk.EmbeddingNewParamsEncodingFormatFloat,
	}
	if e.Dimensions > 0 {
		p.Dimensions = param.NewOpt(int64(e.Dimensions))
	}
	res, err := e.Client.Embeddings.New(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("openai embeddings (%s): %w", e.Model, err)
	}
	out := make([]embed.Vector, len(texts))
	for _, d := range res.Data {
		if d.Index < 0 || int(d.Index) >= len(out) || out[d.Index] != nil {
			return nil, fmt.Errorf("openai embeddings (%s): the response's index %d does not match the %d texts sent", e.Model, d.Index, len(texts))
		}
		v := make(embed.Vector, len(d.Embedding))
		for j, x := range d.Embedding {
			v[j] = float32(x)
		}
		out[d.Index] = v
	}
	for i, v := range out {
		if v == nil {
			return nil, fmt.Errorf("openai embeddings (%s): no vector for text %d of %d", e.Model, i+1, len(texts))
		}
	}
	return out, nil
}

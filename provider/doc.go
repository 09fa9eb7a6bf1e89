// Package provider turns an assembled prompt into the request body of a
// model provider's API: OpenAI Chat Completions, OpenAI Responses,
// Anthropic Messages and Gemini generateContent.
//
// A [Request] is the provider-neutral shape: system-side parts, user-side
// parts (each marked stable or volatile), tools with JSON Schema
// parameters, an optional output schema and a token limit; the engine
// builds one from an assembled prompt's sections, putting each section on
// the side its role says (engine.Result.Request). [Encode] writes the body for one
// [Format] as compact JSON with the standard library: keys in a fixed,
// documented order, schemas copied with their property order intact (a
// schema is never decoded into a Go map), the same bytes for the same
// request every time.
//
// Bodies are cache-aware. Everything a provider can reuse between calls
// (the tools, the output schema, then the stable parts) comes before
// anything volatile, and the returned [Body] carries the hash and token
// count of that stable prefix; for Anthropic, [Options].CacheBreakpoints
// marks the end of the prefix with cache_control breakpoints.
//
// What a body may hold depends on the model as well as the API: older
// models have no structured output, Gemini before Gemini 3 refuses tools
// together with a JSON output schema, Anthropic refuses some schema
// keywords and caches no prefix below a minimum length. [BuiltinModels]
// is a table of those capabilities by model family, embedded as data
// (models.json) with the documentation each row was checked against;
// [ModelTable.Lookup] finds a model's row, and [ModelTable.With] adds
// corrections (tessera.yaml's models: key). Encode itself checks only
// what every model of an API refuses; the engine applies the table.
//
// The package imports no provider SDK. The sub-modules
// github.com/tessera-dev/tessera/openai, .../anthropic and .../gemini
// hand a body to the official SDKs. docs/PROVIDERS.md has the mapping for
// each provider.
package provider

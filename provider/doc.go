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
// The package imports no provider SDK. The sub-modules
// github.com/tessera-dev/tessera/openai, .../anthropic and .../gemini
// hand a body to the official SDKs. docs/providers.md has the mapping for
// each provider.
package provider

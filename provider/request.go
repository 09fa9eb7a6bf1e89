package provider

import (
	"encoding/json"

	"github.com/tessera-dev/tessera/prompt"
)

// Request is a provider-neutral model request: what to send, on which
// side, and what may be cached.
type Request struct {
	// Model names the model. It goes into the body for OpenAI and
	// Anthropic; Gemini takes it in the URL, so its body has none. An
	// empty Model is left out of the body, for the caller to set.
	Model string
	// System are the parts sent as system instructions, in order.
	System []Part
	// User are the parts sent as the user's message, in order.
	User []Part
	// Separator joins the parts of one side into one message's text; ""
	// means a blank line ("\n\n"). A preset's style sets it, so the
	// message reads as the rendered prompt does.
	Separator string
	// Tools are offered to the model as functions, in order.
	Tools []prompt.Tool
	// StrictTools asks OpenAI and Anthropic to hold tool arguments to
	// their schemas ("strict": true). For the OpenAI formats each
	// tool's parameters must then pass schema.CheckStrict.
	StrictTools bool
	// Output, when set, asks for a reply that is JSON matching a schema.
	Output *Output
	// MaxTokens caps the reply's tokens; 0 leaves the provider's default,
	// except for Anthropic, which requires a value and gets
	// DefaultMaxTokens.
	MaxTokens int
}

// DefaultMaxTokens is the max_tokens an Anthropic body gets when the
// request sets none.
const DefaultMaxTokens = 4096

// Part is one piece of a request's text, usually one rendered section.
type Part struct {
	// Key names the part, normally its section's key; it goes into the
	// stable prefix hash, not the body.
	Key string
	// Text is sent as written. Empty parts are left out.
	Text string
	// Stable marks text that stays the same from call to call (rules,
	// identity, reference material), so a provider may cache it; text
	// that changes each call (the task, the input, a transcript) is
	// volatile.
	Stable bool
}

// Output asks for a structured reply: JSON matching a schema.
type Output struct {
	// Name names the schema for OpenAI (letters, digits, '_' and '-', at
	// most 64); empty means "output".
	Name string
	// Schema is the JSON Schema of the reply, an object, copied to the
	// body with its property order intact.
	Schema json.RawMessage
	// Strict asks OpenAI for strict schema adherence; the schema must
	// then pass schema.CheckStrict. Anthropic and Gemini always hold a
	// reply to the schema and ignore the flag.
	Strict bool
}

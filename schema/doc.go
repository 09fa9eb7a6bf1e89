// Package schema reads JSON Schemas without losing their property order,
// and checks and repairs them for OpenAI's strict mode.
//
// A schema's property order is part of what a model sees: the first
// properties of an output schema are the first fields the model writes.
// Decoding a schema into a Go map loses that order, so this package has
// its own JSON value, [Value], whose objects keep their members in the
// order written. [Parse] reads one (rejecting repeated keys, naming where
// they are) and [Value.Append] writes it back as compact JSON.
//
// [CheckStrict] reports every way a schema breaks the rules of OpenAI's
// Structured Outputs strict mode, each at its JSON Pointer (RFC 6901), and
// [Strictify] fixes what can be fixed without guessing: it closes objects
// with "additionalProperties": false and turns optional properties into
// required ones whose value may be null. docs/PROVIDERS.md lists the rules
// and where they come from.
//
// Other providers refuse other keywords in a schema they constrain a
// reply to: Anthropic's structured outputs refuse minimum, maxLength and
// their kin. [KeywordRules] name such keywords, [Value.FindKeywords]
// finds them, and [Value.MoveKeywords] moves each one it can word into
// its schema's description ("minimum": 3 becomes "Must be ≥ 3."), so the
// model still reads the constraint the provider will not enforce.
//
// Each of those functions, and [AppendCompact], reads the bytes it is
// given, so a schema checked, fixed and copied into a request body would
// be read three times. To read it once, [Parse] it and use the methods of
// the [Value]: [Value.CheckStrict], [Value.Strictify] and
// [Value.AppendCompact] give what the functions give, without reading the
// document again. A Value is immutable once built (Value.Strictify
// returns a new one), so it can be kept and shared.
package schema

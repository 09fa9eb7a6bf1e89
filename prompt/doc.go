// Package prompt holds what every other Tessera package builds on: the
// section, the unit a prompt is made of; the assembled prompt with its hash
// and provenance; and the two rules that make output deterministic to the
// byte, text normalisation and the prompt hash.
//
// A section carries everything a later stage of the pipeline may need:
// its key and title, its body and children, a priority and trim rule for
// the budget, its trust and visibility for the guard, the provider role it
// is sent under, and the tools attached to it. Presets (the five layouts
// Tessera knows) set these fields; stages read them. Nothing in this
// package reads files, the clock or the environment.
//
// The hash is defined once, here: SHA-256 over the UTF-8 bytes of the final
// normalised text, as lowercase hex. Audit records, replay, compiled output
// and drift checks all use [Hash].
package prompt

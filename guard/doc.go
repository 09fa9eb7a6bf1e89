// Package guard keeps Tessera's trust boundaries: the places where text a
// prompt's author did not write (a user's query, a transcript, an
// attachment, a tool's output) meets text that instructs the model.
//
// Two rules hold at those boundaries. First, untrusted text is fenced or
// wrapped so that it cannot close its own fence: [Fence] picks a fence
// longer than any run of the same character that starts a line of the text
// ([ChooseFence]), and [WrapTag] neutralises any opening or closing tag of
// the wrapper's name inside the text. Second, secrets and personal data are
// replaced by a labelled placeholder such as "[REDACTED:email]" before the
// text is rendered or logged: a [Redactor] holds the patterns, the defaults
// covering the common providers' API keys and tokens, private keys,
// passwords in URLs, Authorization values, card numbers, IBANs and social
// security numbers ([DefaultPatterns]), and reports how many of each label
// it replaced ([Counts]), never what it replaced.
//
// Everything here is deterministic and free of global mutable state; a
// Redactor is immutable once built and safe for concurrent use. The
// built-in patterns are scanned by hand in linear time (each keeps a
// regular expression that describes it, which the fuzz tests hold the
// scanner to) and skipped on text that lacks a byte every one of their
// matches holds, such as '@' or a digit; patterns of your own are Go
// regular expressions (RE2), so matching time is linear in the length of
// the text whatever the pattern.
package guard

package guard

import (
	"crypto/sha256"
	"encoding/hex"
)

// Match is one part of a text a Redactor replaces: the bytes
// text[Start:End], under Label.
type Match struct {
	Start, End int
	Label      string
}

// Find returns the parts of text that Redact (personal true) or
// RedactSecrets (personal false) replaces, in order and not overlapping.
func (r *Redactor) Find(text string, personal bool) []Match {
	spans := r.spans(text, personal)
	if len(spans) == 0 {
		return nil
	}
	out := make([]Match, len(spans))
	for i, s := range spans {
		out[i] = Match{Start: s.start, End: s.end, Label: r.rules[s.rule].Label}
	}
	return out
}

// Fingerprint names a matched text without holding it: "sha256:" and
// the 64 hex digits of the SHA-256 of its bytes. Messages about a secret
// give its fingerprint, and an Allowlist holds fingerprints.
func Fingerprint(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Allowlist is a set of fingerprints (see Fingerprint) of texts that
// match a pattern but are known not to be secrets: an example key in a
// template, say. The zero value allows nothing.
type Allowlist map[string]bool

package prompt

import (
	"crypto/sha256"
	"encoding/hex"
	"unsafe"
)

// Hash returns the prompt hash of text: the SHA-256 of its UTF-8 bytes as
// 64 lowercase hex digits. Text is expected to be normalised already.
func Hash(text string) string {
	// Sum256 only reads its argument, so the text's bytes are passed
	// without the copy a []byte conversion would make.
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text)))
	var buf [sha256.Size * 2]byte
	hex.Encode(buf[:], sum[:])
	return string(buf[:])
}

// SourceKind says what part a file played in an assembly.
type SourceKind string

const (
	// SourceTemplate is the template a prompt was assembled from.
	SourceTemplate SourceKind = "template"
	// SourceToken is a file that replaced a $$TOKEN, from a node's
	// includes map.
	SourceToken SourceKind = "token"
	// SourceInclude is a file named by an $$include directive.
	SourceInclude SourceKind = "include"
)

// Source records one file that went into a prompt and where its text
// landed, so an audit record can say which file changed when a replay no
// longer matches.
type Source struct {
	// Kind is the part the file played.
	Kind SourceKind `json:"kind"`
	// Token is the $$TOKEN the file replaced, for SourceToken.
	Token string `json:"token,omitempty"`
	// Path is the file's slash-separated path relative to the catalog root.
	Path string `json:"path"`
	// Line is the template line the token or directive stood on; 0 for the
	// template itself.
	Line int `json:"line,omitempty"`
	// Hash is the prompt hash (see Hash) of the file's normalised text.
	Hash string `json:"hash"`
	// Start and End are the byte range of the file's text in the prompt,
	// End exclusive. For the template they span the whole prompt.
	Start int `json:"start"`
	End   int `json:"end"`
}

// SectionSpan is where one rendered section landed in a prompt's text.
type SectionSpan struct {
	// Key is the section's key; nested keys are joined with '/'.
	Key string `json:"key"`
	// Start and End are the byte range of the section in the text.
	Start int `json:"start"`
	End   int `json:"end"`
	// Hash is the prompt hash of the section's own text.
	Hash string `json:"hash"`
}

// Prompt is an assembled prompt: the exact text to send, its hash, and
// where each part of it came from.
type Prompt struct {
	// Text is the final text, normalised, deterministic to the byte.
	Text string
	// Hash is Hash(Text).
	Hash string
	// Sections locates each rendered section in Text, for presets whose
	// source has sections; it is empty for a plain template.
	Sections []SectionSpan
	// Sources lists the files the text was assembled from, in the order
	// they were used.
	Sources []Source
}

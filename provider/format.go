package provider

import (
	"fmt"
	"strings"
)

// Format is a provider API whose request body Encode can write.
type Format uint8

const (
	// OpenAIChat is OpenAI Chat Completions (POST /v1/chat/completions),
	// also spoken by many compatible servers. Named "openai".
	OpenAIChat Format = iota + 1
	// OpenAIResponses is the OpenAI Responses API (POST /v1/responses).
	// Named "openai-responses".
	OpenAIResponses
	// Anthropic is the Anthropic Messages API (POST /v1/messages). Named
	// "anthropic".
	Anthropic
	// Gemini is the Gemini API's generateContent
	// (POST /v1beta/models/{model}:generateContent). Named "gemini".
	Gemini
)

var formatNames = [...]string{OpenAIChat: "openai", OpenAIResponses: "openai-responses", Anthropic: "anthropic", Gemini: "gemini"}

// Formats lists every format, in the order of their constants.
func Formats() []Format { return []Format{OpenAIChat, OpenAIResponses, Anthropic, Gemini} }

// String returns the format's name, the one ParseFormat reads.
func (f Format) String() string {
	if f >= OpenAIChat && int(f) < len(formatNames) {
		return formatNames[f]
	}
	return fmt.Sprintf("Format(%d)", f)
}

// ParseFormat returns the format named name: "openai", "openai-responses",
// "anthropic" or "gemini".
func ParseFormat(name string) (Format, error) {
	for _, f := range Formats() {
		if formatNames[f] == name {
			return f, nil
		}
	}
	return 0, fmt.Errorf("unknown provider format %q: use one of %s", name, strings.Join(formatNames[OpenAIChat:], ", "))
}

func (f Format) valid() bool { return f >= OpenAIChat && f <= Gemini }

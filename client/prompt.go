package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Prompt is a prompt as the server gives it: Langfuse's fields, then
// Tessera's.
type Prompt struct {
	Name    string
	Version int
	// Type is "text" (the prompt is Text) or "chat" (it is Messages).
	Type     string
	Text     string
	Messages []Message
	// Config is the prompt's config object, as JSON.
	Config        json.RawMessage
	Labels        []string
	Tags          []string
	CommitMessage string
	// Commit is the Git commit the prompt was assembled at, Ref the ref
	// it was resolved through, Hash the SHA-256 of its assembled text.
	Commit, Ref, Hash string
	// Sources are the files it was assembled from, with their blob ids.
	Sources []Source

	// Stale says the copy is past its TTL: it was returned from the
	// cache while a refresh runs (or after a refresh failed).
	Stale bool
	// Fallback says the prompt comes from the embedded compiled catalog,
	// because the server could not be reached.
	Fallback bool
}

// Message is one message of a chat prompt: a role and its content, or a
// placeholder (Type "placeholder", Name) for messages the caller adds.
type Message struct {
	Role    string `json:"role,omitempty"`
	Content string `json:"content,omitempty"`
	Type    string `json:"type,omitempty"`
	Name    string `json:"name,omitempty"`
}

// Source is one file a prompt was assembled from.
type Source struct {
	Path string `json:"path"`
	Blob string `json:"blob"`
}

// wire is the JSON of a prompt.
type wire struct {
	Name          string          `json:"name"`
	Version       int             `json:"version"`
	Type          string          `json:"type"`
	Prompt        json.RawMessage `json:"prompt"`
	Config        json.RawMessage `json:"config"`
	Labels        []string        `json:"labels"`
	Tags          []string        `json:"tags"`
	CommitMessage *string         `json:"commitMessage"`
	Commit        string          `json:"commit"`
	Ref           string          `json:"ref"`
	Hash          string          `json:"hash"`
	Sources       []Source        `json:"sources"`
}

// parsePrompt decodes a prompt from the server.
func parsePrompt(body []byte) (*Prompt, error) {
	var w wire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("the answer is not a prompt: %v", err)
	}
	if w.Name == "" {
		return nil, errors.New("the answer is not a prompt: it has no name")
	}
	p := &Prompt{Name: w.Name, Version: w.Version, Type: w.Type, Config: w.Config, Labels: w.Labels, Tags: w.Tags,
		Commit: w.Commit, Ref: w.Ref, Hash: w.Hash, Sources: w.Sources}
	if w.CommitMessage != nil {
		p.CommitMessage = *w.CommitMessage
	}
	switch w.Type {
	case "chat":
		if err := json.Unmarshal(w.Prompt, &p.Messages); err != nil {
			return nil, fmt.Errorf("prompt %s: a chat prompt's prompt must be a list of messages: %v", w.Name, err)
		}
	case "text", "":
		p.Type = "text"
		if err := json.Unmarshal(w.Prompt, &p.Text); err != nil {
			return nil, fmt.Errorf("prompt %s: a text prompt's prompt must be a string: %v", w.Name, err)
		}
	default:
		return nil, fmt.Errorf("prompt %s: unknown type %q (want text or chat)", w.Name, w.Type)
	}
	return p, nil
}

// clone returns a copy of p that shares nothing a caller could change.
func (p *Prompt) clone() *Prompt {
	c := *p
	c.Messages = slices.Clone(p.Messages)
	c.Config = slices.Clone(p.Config)
	c.Labels = slices.Clone(p.Labels)
	c.Tags = slices.Clone(p.Tags)
	c.Sources = slices.Clone(p.Sources)
	return &c
}

// Compile returns the text prompt with each {{name}} whose name is a key
// of vars replaced by its value, as Langfuse's clients compile: spaces
// inside the braces are ignored ({{ name }}), a nil value is the empty
// string, other values are formatted with fmt.Sprint, and a placeholder
// whose name is not in vars is left as it is. Values are inserted as
// they are, never compiled again. For a chat prompt, use
// CompileMessages.
func (p *Prompt) Compile(vars map[string]any) string { return compile(p.Text, vars) }

// CompileMessages returns the chat prompt's messages with each message's
// content compiled as Compile does.
func (p *Prompt) CompileMessages(vars map[string]any) []Message {
	out := slices.Clone(p.Messages)
	for i := range out {
		out[i].Content = compile(out[i].Content, vars)
	}
	return out
}

// Variables returns the names of the {{name}} placeholders of the text
// prompt, or of the chat prompt's messages, in order of first use.
func (p *Prompt) Variables() []string {
	var names []string
	add := func(s string) {
		each(s, func(_, name string, isVar bool) {
			if isVar && !slices.Contains(names, name) {
				names = append(names, name)
			}
		})
	}
	add(p.Text)
	for _, m := range p.Messages {
		add(m.Content)
	}
	return names
}

func compile(s string, vars map[string]any) string {
	if len(vars) == 0 || !strings.Contains(s, "{{") {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	each(s, func(text, name string, isVar bool) {
		if !isVar {
			b.WriteString(text)
			return
		}
		v, ok := vars[name]
		switch {
		case !ok:
			b.WriteString(text)
		case v == nil:
		default:
			b.WriteString(fmt.Sprint(v))
		}
	})
	return b.String()
}

// each splits s into text and placeholders: each "{{" up to the next
// "}}" is one, named by what is between them without surrounding
// spaces. fn gets each piece, its name and whether it is a placeholder.
func each(s string, fn func(text, name string, isVar bool)) {
	for s != "" {
		start := strings.Index(s, "{{")
		if start < 0 {
			fn(s, "", false)
			return
		}
		end := strings.Index(s[start:], "}}")
		if end < 0 {
			fn(s, "", false)
			return
		}
		end += start
		if start > 0 {
			fn(s[:start], "", false)
		}
		fn(s[start:end+2], strings.TrimSpace(s[start+2:end]), true)
		s = s[end+2:]
	}
}

package provider

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode"

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

// StableKeys returns a stable function for FromPrompt that reports the
// given section keys, and no others, as stable.
func StableKeys(keys ...string) func(key string) bool {
	return func(key string) bool { return slices.Contains(keys, key) }
}

// FromPrompt splits an assembled prompt into a Request by its section
// spans: each top-level span becomes a Part on the side its section's
// Role names, keyed by the span's key and marked stable when stable(key)
// says so (nil marks nothing stable). Spans nested in an earlier span are
// part of it. Text between spans that is only white space (the separators
// a preset renders) is dropped; other text outside every span is kept
// with the next part, or with the last part when it comes after them all.
//
// A prompt without spans, such as a template's, becomes one user-side part
// with the empty key.
//
// Tools are taken from the sections that have a span, and their children,
// in section order (from every section when the prompt has no spans); a
// tool named twice must be defined the same way both times. Model,
// Output and MaxTokens are left for the caller to set.
func FromPrompt(p prompt.Prompt, sections []prompt.Section, stable func(key string) bool) (Request, error) {
	isStable := func(key string) bool { return stable != nil && stable(key) }
	var req Request
	if len(p.Sections) == 0 {
		req.User = []Part{{Text: p.Text, Stable: isStable("")}}
		tools, err := collectTools(sections, nil)
		req.Tools = tools
		return req, err
	}
	byKey := make(map[string]*prompt.Section, len(sections))
	for i := range sections {
		byKey[sections[i].Key] = &sections[i]
	}
	spans := slices.Clone(p.Sections)
	slices.SortStableFunc(spans, func(a, b prompt.SectionSpan) int {
		return cmp.Or(cmp.Compare(a.Start, b.Start), cmp.Compare(b.End, a.End))
	})
	rendered := make(map[string]bool, len(spans))
	var sides []*[]Part // the side each kept part went to, for trailing text
	end := 0
	for _, s := range spans {
		if s.Start < 0 || s.End < s.Start || s.End > len(p.Text) {
			return Request{}, fmt.Errorf("provider: section span %q [%d, %d) is outside the prompt's %d bytes", s.Key, s.Start, s.End, len(p.Text))
		}
		if s.Start < end {
			if s.End <= end {
				continue // nested in the previous span
			}
			return Request{}, fmt.Errorf("provider: section span %q [%d, %d) overlaps the span before it, which ends at %d: spans must nest or follow each other", s.Key, s.Start, s.End, end)
		}
		top, _, _ := strings.Cut(s.Key, "/")
		sec := byKey[top]
		if sec == nil {
			return Request{}, fmt.Errorf("provider: section span %q has no section %q among the %d given: pass the sections the prompt was assembled from", s.Key, top, len(sections))
		}
		rendered[top] = true
		text := p.Text[s.Start:s.End]
		if gap := p.Text[end:s.Start]; !isBlank(gap) {
			text = strings.TrimLeftFunc(gap, unicode.IsSpace) + text
		}
		side := &req.User
		if sec.Role == prompt.RoleSystem {
			side = &req.System
		}
		*side = append(*side, Part{Key: s.Key, Text: text, Stable: isStable(s.Key)})
		sides = append(sides, side)
		end = s.End
	}
	if tail := p.Text[end:]; !isBlank(tail) && len(sides) > 0 {
		last := sides[len(sides)-1]
		(*last)[len(*last)-1].Text += strings.TrimRightFunc(tail, unicode.IsSpace)
	}
	tools, err := collectTools(sections, rendered)
	req.Tools = tools
	return req, err
}

func isBlank(s string) bool { return strings.TrimSpace(s) == "" }

// collectTools gathers the tools of the sections whose keys are in keep
// (all sections when keep is nil) and of their children.
func collectTools(sections []prompt.Section, keep map[string]bool) ([]prompt.Tool, error) {
	var tools []prompt.Tool
	var walk func(ss []prompt.Section) error
	walk = func(ss []prompt.Section) error {
		for i := range ss {
			for _, t := range ss[i].Tools {
				j := slices.IndexFunc(tools, func(u prompt.Tool) bool { return u.Name == t.Name })
				if j < 0 {
					tools = append(tools, t)
					continue
				}
				if u := tools[j]; u.Description != t.Description || !bytes.Equal(u.Parameters, t.Parameters) {
					return fmt.Errorf("provider: tool %q is defined twice, differently (the second time in section %q): give one of them another name", t.Name, ss[i].Key)
				}
			}
			if err := walk(ss[i].Children); err != nil {
				return err
			}
		}
		return nil
	}
	for i := range sections {
		if keep != nil && !keep[sections[i].Key] {
			continue
		}
		if err := walk(sections[i : i+1]); err != nil {
			return nil, err
		}
	}
	return tools, nil
}

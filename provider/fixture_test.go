package provider

import (
	"encoding/json"
	"slices"

	"github.com/tessera-dev/tessera/prompt"
)

// fixtureSection is one section of the hand-built fixture.
type fixtureSection struct {
	key, text string
	role      prompt.Role
	tools     []prompt.Tool
}

// The fixture follows design 004's seven sections: the system prompt and
// identity on the system side, the rest on the user side, tools on the
// task section. Its schemas list properties out of alphabetical order, so
// a body that sorted them would show.
var fixtureSections = []fixtureSection{
	{"system-prompt", "## [System Prompt]\n- (1) Precedence: architecture.yaml > everything else.\n- (2) Safety: do not reveal secrets.\n- (3) Treat the [Constraints] section as non-negotiable.", prompt.RoleSystem, nil},
	{"identity", "## [Assistant Identity]\n- Role: Staff Engineer\n- Tone: precise", prompt.RoleSystem, nil},
	{"requesting-user", "## [Requesting User]\n- Handle: @dana\n- Locale: en-GB", prompt.RoleUser, nil},
	{"conversation-state", "## [Conversation State / History]\n- Summary: the review of the \"v2\" layout is under way.\n~~~text\nU: Can we add a <state> layer?\nA: Yes.\n~~~", prompt.RoleUser, nil},
	{"constraints", "## [Constraints]\n- (1) Keep replies under 500 tokens.\n- (2) Cite file paths.", prompt.RoleUser, nil},
	{"task", "## [Task]\n- (1) Summarise the open questions.\n- (2) File a ticket for each blocker.", prompt.RoleUser, []prompt.Tool{
		{
			Name:        "search_docs",
			Description: "Search the design documents.",
			Parameters: json.RawMessage(`{
				"type": "object",
				"properties": {
					"query": {"type": "string", "description": "Words to look for."},
					"limit": {"type": ["integer", "null"], "minimum": 1}
				},
				"required": ["query", "limit"],
				"additionalProperties": false
			}`),
		},
		{
			Name:        "file_ticket",
			Description: "File a ticket for a blocker.",
			Parameters:  json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"},"severity":{"type":"string","enum":["low","high"]},"body":{"type":"string"}},"required":["title","severity","body"],"additionalProperties":false}`),
		},
	}},
	{"input", "## [Input]\n~~~text\nWe are standardising the prompt pipeline.\tTabs, \\ backslashes and \u00e9 survive.\n~~~", prompt.RoleUser, nil},
}

// fixtureOutput is the fixture's output schema, strict as written.
var fixtureOutput = json.RawMessage(`{
  "type": "object",
  "properties": {
    "summary": {"type": "string"},
    "questions": {"type": "array", "items": {"type": "object", "properties": {"text": {"type": "string"}, "blocking": {"type": "boolean"}}, "required": ["text", "blocking"], "additionalProperties": false}},
    "confidence": {"type": ["number", "null"]}
  },
  "required": ["summary", "questions", "confidence"],
  "additionalProperties": false
}`)

// fixtureStable are the fixture's stable sections. "constraints" is
// stable too, but comes after the volatile conversation state, so it is
// not in the stable prefix.
var fixtureStable = []string{"system-prompt", "identity", "requesting-user", "constraints"}

// fixtureRequest is the fixture as a Request, built by hand the way the
// engine maps a rendered prompt: each section one part on its role's
// side, stable when fixtureStable says so, with the task's tools (strict),
// a strict output schema and a token limit.
func fixtureRequest() Request {
	var req Request
	for _, s := range fixtureSections {
		part := Part{Key: s.key, Text: s.text, Stable: slices.Contains(fixtureStable, s.key)}
		if s.role == prompt.RoleSystem {
			req.System = append(req.System, part)
		} else {
			req.User = append(req.User, part)
		}
		req.Tools = append(req.Tools, s.tools...)
	}
	req.StrictTools = true
	req.Output = &Output{Name: "open_questions", Schema: fixtureOutput, Strict: true}
	req.MaxTokens = 1024
	return req
}

// models are the model names the goldens use; Gemini's goes in the URL.
var models = map[Format]string{
	OpenAIChat:      "gpt-4.1",
	OpenAIResponses: "gpt-4.1",
	Anthropic:       "claude-sonnet-4-5",
}

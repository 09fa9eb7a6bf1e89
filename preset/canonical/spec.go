package canonical

import "encoding/json"

// Spec is a prompt spec, the design's PromptSpec: the seven parts of a
// canonical prompt. Field names in JSON and YAML are the design's.
// Only Task (at least one annotation) and Input.UserQuery are required.
//
// Beyond the design, a spec may give the assistant's role
// (Identity.Role), the scope of the conversation state
// (ConversationState.Scope), a name for a task's output
// (FormatSpec.Name), tools offered with the task (Tools) and the
// assembler's settings (Assembler).
type Spec struct {
	// SystemPrompt is the system's immutable rules.
	SystemPrompt *SystemPrompt `json:"systemPrompt,omitempty" yaml:"systemPrompt,omitempty"`
	// Identity is the assistant's persona, rendered as [Assistant Identity].
	Identity *Identity `json:"identity,omitempty" yaml:"identity,omitempty"`
	// RequestingUser is the stable, non-sensitive traits of the requester.
	RequestingUser *RequestingUser `json:"requestingUser,omitempty" yaml:"requestingUser,omitempty"`
	// ConversationState is the session's state and recent history.
	ConversationState *ConversationState `json:"conversationState,omitempty" yaml:"conversationState,omitempty"`
	// Constraints are the non-negotiable rules, rendered by ascending
	// priority.
	Constraints []Constraint `json:"constraints,omitempty" yaml:"constraints,omitempty"`
	// Task is the prioritised prompt annotations; at least one.
	Task []TaskAnnotation `json:"task" yaml:"task"`
	// Input is the user's query and attachments.
	Input InputPayload `json:"input" yaml:"input"`
	// Tools are functions offered to the model with the task (an
	// extension: the design has none). They are not rendered in the text;
	// they ride on the task section for the provider request.
	Tools []Tool `json:"tools,omitempty" yaml:"tools,omitempty"`
	// Assembler holds rendering settings carried by the spec file (the
	// design's AssemblerConfig); a Config passed to Assemble overrides
	// them.
	Assembler *AssemblerConfig `json:"assembler,omitempty" yaml:"assembler,omitempty"`

	// source and pos locate the spec's fields (line and column) in the
	// file it was parsed from, for diagnostics; empty for a spec built in
	// Go. A spec ParseSpec returns keeps its text and no pos, and places
	// finds them when a diagnostic needs them.
	source string
	pos    func(field string) (line, col int)
	text   string
}

// SystemPrompt is the system's immutable laws and defaults.
type SystemPrompt struct {
	// Summary is an optional one-line statement of the system's purpose.
	Summary string `json:"summary,omitempty" yaml:"summary,omitempty"`
	// Rules are rendered in the order given, numbered from (1): the first
	// takes precedence.
	Rules []string `json:"rules" yaml:"rules"`
	// Sources name where the rules come from.
	Sources []string `json:"sources,omitempty" yaml:"sources,omitempty"`
}

// Identity is the assistant's persona, role, tone and stance.
type Identity struct {
	// PersonaID identifies a stored persona.
	PersonaID string `json:"personaId,omitempty" yaml:"personaId,omitempty"`
	// Name is the assistant's name.
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// Role is the assistant's role, such as "Staff Engineer" (an
	// extension; the design's example shows it).
	Role string `json:"role,omitempty" yaml:"role,omitempty"`
	// Summary describes the persona in a sentence.
	Summary string `json:"summary,omitempty" yaml:"summary,omitempty"`
	// Traits are the persona's traits.
	Traits []string `json:"traits,omitempty" yaml:"traits,omitempty"`
	// Tone is the tone to answer in.
	Tone string `json:"tone,omitempty" yaml:"tone,omitempty"`
	// StyleGuidelines are rendered on one "Style:" line, joined by "; ".
	StyleGuidelines []string `json:"styleGuidelines,omitempty" yaml:"styleGuidelines,omitempty"`
}

// RequestingUser is the stable, non-sensitive traits of the person or
// program asking. It must hold no secrets.
type RequestingUser struct {
	// UserID is the requester's id in the caller's system.
	UserID string `json:"userId,omitempty" yaml:"userId,omitempty"`
	// Handle is the requester's handle, such as "@ann".
	Handle string `json:"handle,omitempty" yaml:"handle,omitempty"`
	// DisplayName is the requester's name as shown.
	DisplayName string `json:"displayName,omitempty" yaml:"displayName,omitempty"`
	// Roles are the requester's roles, such as "Architect".
	Roles []string `json:"roles,omitempty" yaml:"roles,omitempty"`
	// Locale is a language tag such as "en-US".
	Locale string `json:"locale,omitempty" yaml:"locale,omitempty"`
	// Timezone is an IANA zone such as "America/New_York".
	Timezone string `json:"timezone,omitempty" yaml:"timezone,omitempty"`
	// Tier is the requester's plan or service tier.
	Tier string `json:"tier,omitempty" yaml:"tier,omitempty"`
}

// Render modes of the conversation state.
const (
	// ModeSummary renders the summary only (the default).
	ModeSummary = "summary"
	// ModeTranscript renders the transcript only.
	ModeTranscript = "transcript"
	// ModeBoth renders the summary, then the transcript.
	ModeBoth = "both"
)

// ConversationState is the session's short-term state and salient
// history. It is redacted of personal data (e-mail addresses, phone
// numbers) as well as secrets before it is rendered.
type ConversationState struct {
	// Summary is the compact state summary the design prefers.
	Summary string `json:"summary,omitempty" yaml:"summary,omitempty"`
	// Scope says what the conversation is limited to (an extension; the
	// design's example shows it).
	Scope string `json:"scope,omitempty" yaml:"scope,omitempty"`
	// Transcript is the recent messages, oldest first.
	Transcript []ConversationStateItem `json:"transcript,omitempty" yaml:"transcript,omitempty"`
	// Retention limits the transcript rendered; the oldest messages go
	// first.
	Retention *RetentionLimits `json:"retention,omitempty" yaml:"retention,omitempty"`
	// RenderMode is ModeSummary (the default, also for ""),
	// ModeTranscript or ModeBoth.
	RenderMode string `json:"renderMode,omitempty" yaml:"renderMode,omitempty"`
}

// RetentionLimits bound the transcript rendered. Zero means no limit.
type RetentionLimits struct {
	// MaxMessages keeps at most this many of the newest messages.
	MaxMessages int `json:"maxMessages,omitempty" yaml:"maxMessages,omitempty"`
	// MaxChars keeps the newest messages whose contents, in characters
	// (Unicode code points), add up to at most this many.
	MaxChars int `json:"maxChars,omitempty" yaml:"maxChars,omitempty"`
}

// Roles of a transcript message.
const (
	// RoleUser is a message from the user, rendered "U:".
	RoleUser = "user"
	// RoleAssistant is a message from the assistant, rendered "A:".
	RoleAssistant = "assistant"
	// RoleTool is a tool's output, rendered "T:".
	RoleTool = "tool"
)

// ConversationStateItem is one message of a transcript.
type ConversationStateItem struct {
	// Role is RoleUser, RoleAssistant or RoleTool.
	Role string `json:"role" yaml:"role"`
	// Content is the message.
	Content string `json:"content" yaml:"content"`
	// At is when it was sent, an RFC 3339 time or a date (optional).
	At string `json:"at,omitempty" yaml:"at,omitempty"`
}

// defaultPriority is the priority of a constraint or task annotation that
// gives none.
const defaultPriority = 3

// Constraint is a non-negotiable rule.
type Constraint struct {
	// ID names the constraint: letters, digits, '_' and '-'; unique.
	ID string `json:"id,omitempty" yaml:"id,omitempty"`
	// Priority is 1 (highest) to 5; 0 means defaultPriority.
	Priority int `json:"priority,omitempty" yaml:"priority,omitempty"`
	// Text is the rule, rendered on one line.
	Text string `json:"text" yaml:"text"`
	// Tags classify the rule; they are not rendered.
	Tags []string `json:"tags,omitempty" yaml:"tags,omitempty"`
	// Source is "system", "policy" or "runtime"; it is not rendered.
	Source string `json:"source,omitempty" yaml:"source,omitempty"`
}

// Output format types.
const (
	// FormatMarkdown asks for Markdown.
	FormatMarkdown = "markdown"
	// FormatJSON asks for JSON, optionally matching a schema.
	FormatJSON = "json"
	// FormatXML asks for XML.
	FormatXML = "xml"
	// FormatText asks for plain text.
	FormatText = "text"
)

// FormatSpec is the output a task annotation asks for.
type FormatSpec struct {
	// Type is FormatMarkdown, FormatJSON, FormatXML or FormatText.
	Type string `json:"type" yaml:"type"`
	// Name names the output for a provider's structured-output request
	// (an extension): letters, digits, '_' and '-', at most 64. When empty
	// the task's ID is used, else "output".
	Name string `json:"name,omitempty" yaml:"name,omitempty"`
	// JSONSchema is a JSON Schema object, kept as written: the order of
	// its properties survives to the prompt and the provider request. Only
	// with Type FormatJSON.
	JSONSchema json.RawMessage `json:"jsonSchema,omitempty" yaml:"jsonSchema,omitempty"`
	// Example is an example of the output.
	Example string `json:"example,omitempty" yaml:"example,omitempty"`
}

// TaskAnnotation is one prioritised instruction.
type TaskAnnotation struct {
	// ID names the annotation: letters, digits, '_' and '-'; unique.
	ID string `json:"id,omitempty" yaml:"id,omitempty"`
	// Priority is 1 (highest) to 5; 0 means defaultPriority.
	Priority int `json:"priority,omitempty" yaml:"priority,omitempty"`
	// Instruction is the instruction, rendered on one line.
	Instruction string `json:"instruction" yaml:"instruction"`
	// Required marks an annotation a budget may not drop; nil means true.
	Required *bool `json:"required,omitempty" yaml:"required,omitempty"`
	// OutputFormat is the output asked for, if any.
	OutputFormat *FormatSpec `json:"outputFormat,omitempty" yaml:"outputFormat,omitempty"`
}

// IsRequired reports whether the annotation is required (the default).
func (t *TaskAnnotation) IsRequired() bool { return t == nil || t.Required == nil || *t.Required }

// InputPayload is the immediate input: the user's query, free-form
// context and attachments. All of it is untrusted and rendered fenced.
type InputPayload struct {
	// UserQuery is the query; required.
	UserQuery string `json:"userQuery" yaml:"userQuery"`
	// Attachments are files sent with the query.
	Attachments []Attachment `json:"attachments,omitempty" yaml:"attachments,omitempty"`
	// Context is free-form context that is not history.
	Context string `json:"context,omitempty" yaml:"context,omitempty"`
}

// Attachment is a file sent with the query. A textual attachment (text/*,
// or JSON, XML, YAML, CSV or JavaScript by type) whose bytes are given is
// rendered fenced; any other is listed by name, type and address.
type Attachment struct {
	// Name is the file's name; required.
	Name string `json:"name" yaml:"name"`
	// Mime is its media type, such as "text/plain"; required.
	Mime string `json:"mime" yaml:"mime"`
	// URI is where it can be fetched.
	URI string `json:"uri,omitempty" yaml:"uri,omitempty"`
	// BytesBase64 is its content in standard base64.
	BytesBase64 string `json:"bytesBase64,omitempty" yaml:"bytesBase64,omitempty"`
}

// Tool is a function offered to the model with the task.
type Tool struct {
	// Name is how the model calls it: letters, digits, '_' and '-', at
	// most 64; unique.
	Name string `json:"name" yaml:"name"`
	// Description tells the model when to use it.
	Description string `json:"description,omitempty" yaml:"description,omitempty"`
	// Parameters is the JSON Schema object of its arguments, kept as
	// written.
	Parameters json.RawMessage `json:"parameters,omitempty" yaml:"parameters,omitempty"`
}

// AssemblerConfig is the rendering settings a spec file may carry.
type AssemblerConfig struct {
	// HeadingLevel is 1 to 3 ('#' to '###'); 0 means 2.
	HeadingLevel int `json:"headingLevel,omitempty" yaml:"headingLevel,omitempty"`
	// ShowEmptySections renders empty sections as "None provided."; nil
	// means true.
	ShowEmptySections *bool `json:"showEmptySections,omitempty" yaml:"showEmptySections,omitempty"`
}

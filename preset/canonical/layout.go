package canonical

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
)

// Section keys of the canonical preset, in canonical order. Children have
// dotted keys: the transcript is keyTranscript under keyConversationState;
// the input's context is keyContext and its attachments
// "input.attachment-1", "input.attachment-2", ... under keyInput.
const (
	keySystemPrompt      = "system-prompt"
	keyIdentity          = "identity"
	keyRequestingUser    = "requesting-user"
	keyConversationState = "conversation-state"
	keyConstraints       = "constraints"
	keyTask              = "task"
	keyInput             = "input"

	keyTranscript = "conversation-state.transcript"
	keyContext    = "input.context"
	// keyAttachmentPrefix followed by 1, 2, ... is the key of each
	// attachment.
	keyAttachmentPrefix = "input.attachment-"
)

// order is the canonical order of the sections, with their labels.
var order = [...]struct{ key, title string }{
	{keySystemPrompt, "System Prompt"},
	{keyIdentity, "Assistant Identity"},
	{keyRequestingUser, "Requesting User"},
	{keyConversationState, "Conversation State / History"},
	{keyConstraints, "Constraints"},
	{keyTask, "Task"},
	{keyInput, "Input"},
}

// SectionKeys returns the keys of the seven sections in canonical order.
func SectionKeys() []string {
	keys := make([]string, len(order))
	for i, o := range order {
		keys[i] = o.key
	}
	return keys
}

// Priorities of the sections: lower is kept longer. They follow the
// design's preservation order; see docs/canonical.md.
const (
	prioritySystemPrompt   = 1
	priorityInput          = 1
	priorityIdentity       = 2
	priorityConstraints    = 3
	priorityRequestingUser = 4
	priorityState          = 5
	priorityTranscript     = 6
	priorityTask           = 7
	priorityContext        = 8
	priorityAttachment     = 9
)

// Config is how a spec is assembled.
type Config struct {
	// HeadingLevel is the number of '#' before each section label, 1 to
	// 3; 0 means the spec's assembler.headingLevel, else 2.
	HeadingLevel int
	// HideEmptySections leaves out empty and missing sections instead of
	// rendering them as "None provided."; a spec's
	// assembler.showEmptySections: false does the same.
	HideEmptySections bool
	// Redactor redacts secrets from every text field, and personal data
	// from the conversation state, before layout; nil means
	// guard.Default(). guard.NewRedactor(nil, false) redacts nothing.
	Redactor *guard.Redactor
}

// Retention reports what the conversation state's retention limits did
// to the transcript.
type Retention struct {
	// Mode is the render mode applied: summary, transcript or both. In
	// summary mode no message is rendered and none is counted as dropped.
	Mode string `json:"mode"`
	// Messages is the number of messages in the spec's transcript.
	Messages int `json:"messages"`
	// Kept is the number rendered, the newest.
	Kept int `json:"kept"`
	// Dropped is the number left out by the limits, the oldest.
	Dropped int `json:"dropped"`
	// DroppedChars is the characters of the dropped messages' contents.
	DroppedChars int `json:"dropped_chars"`
}

// Result is an assembled canonical prompt and what went into it.
type Result struct {
	// Spec is the spec as laid out: redacted, so it is what a log may
	// keep. The original spec is not retained.
	Spec *Spec
	// Prompt is the rendered text, its hash and each section's span.
	Prompt prompt.Prompt
	// Sections are the laid-out sections Prompt was rendered from, for a
	// budget stage to trim and render again with Render and Config.
	Sections []prompt.Section
	// Config is the configuration Prompt was rendered with, the spec's
	// assembler settings applied.
	Config Config
	// OutputSchema is the JSON Schema of the first task annotation, in
	// priority order, whose output format is JSON with a schema; nil if
	// there is none.
	OutputSchema json.RawMessage
	// OutputName names OutputSchema: the format's name, else the task's
	// id, else "output". Empty when OutputSchema is nil.
	OutputName string
	// Redactions counts what was redacted, per label.
	Redactions guard.Counts
	// Retention is what the retention limits dropped from the transcript.
	Retention Retention
}

// Assemble redacts spec (Config.Redactor), lays it out as sections
// (Layout) and renders them (Render). The spec is validated first and
// every problem returned, as Validate does. Assemble does not modify the
// spec, so one spec may be assembled by many goroutines at once.
func Assemble(ctx context.Context, spec *Spec, cfg Config) (*Result, error) {
	res, err := prepare(ctx, spec, cfg, true)
	if err != nil {
		return nil, err
	}
	res.Prompt = Render(res.Sections, res.Config)
	return res, nil
}

// prepare is Assemble without the rendering, which the engine does
// itself; validate is false for a spec ParseSpec has just returned,
// which it validated.
func prepare(ctx context.Context, spec *Spec, cfg Config, validate bool) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if spec == nil {
		return nil, errors.New("canonical: no spec")
	}
	if cfg.HeadingLevel < 0 || cfg.HeadingLevel > 3 {
		return nil, fmt.Errorf("canonical: Config.HeadingLevel is %d: use 1, 2 or 3, or 0 for the spec's setting or 2", cfg.HeadingLevel)
	}
	if validate {
		if err := spec.Validate(); err != nil {
			return nil, err
		}
	}
	r := cfg.Redactor
	if r == nil {
		r = guard.Default()
	}
	red, counts, err := spec.Redacted(r)
	if err != nil {
		return nil, err
	}
	sections, ret := layout(red)
	eff := red.effective(cfg)
	res := &Result{
		Spec:       red,
		Sections:   sections,
		Config:     eff,
		Redactions: counts,
		Retention:  ret,
	}
	for _, i := range byPriority(len(red.Task), func(i int) int { return red.Task[i].Priority }) {
		t := &red.Task[i]
		if o := t.OutputFormat; o != nil && o.Type == FormatJSON && len(o.JSONSchema) > 0 {
			res.OutputSchema = o.JSONSchema
			res.OutputName = cmp.Or(o.Name, t.ID, "output")
			break
		}
	}
	return res, nil
}

// effective returns cfg with the spec's assembler settings applied where
// cfg leaves them open.
func (s *Spec) effective(cfg Config) Config {
	if a := s.Assembler; a != nil {
		if cfg.HeadingLevel == 0 {
			cfg.HeadingLevel = a.HeadingLevel
		}
		if a.ShowEmptySections != nil && !*a.ShowEmptySections {
			cfg.HideEmptySections = true
		}
	}
	if cfg.HeadingLevel == 0 {
		cfg.HeadingLevel = 2
	}
	return cfg
}

// Layout validates spec and lays it out as the seven canonical sections,
// in order, every one present (an empty one has no body, items or
// children), with the content formatted: bullets, "(priority)" markers,
// the transcript's messages as items after retention. It does not redact;
// Assemble does. The Config is accepted so layout options can be added
// without changing the signature; no field of it is read today.
//
// The sections carry the design's preservation order as priorities and
// trim rules (lower priority numbers are kept longer):
//
//	system-prompt                  1  never    system role
//	identity                       2  drop     system role
//	constraints                    3  never
//	requesting-user                4  drop
//	conversation-state             5  drop     summary and scope
//	conversation-state.transcript  6  oldest   messages as items, untrusted
//	task                           7  lowest-relevance; items, required ones kept
//	input                          1  never    the user's query, untrusted
//	input.context                  8  truncate untrusted
//	input.attachment-N             9  truncate (drop when only listed), untrusted
func Layout(spec *Spec, cfg Config) ([]prompt.Section, Retention, error) {
	if spec == nil {
		return nil, Retention{}, errors.New("canonical: no spec")
	}
	if err := spec.Validate(); err != nil {
		return nil, Retention{}, err
	}
	sections, ret := layout(spec)
	return sections, ret, nil
}

// layoutSize returns about the bytes layout writes into its buffer: the
// trusted texts (the input's and the tools' go elsewhere) with a few
// bytes of markup each, and each output schema twice, as indented JSON.
func (s *Spec) layoutSize() int {
	size := 256
	s.eachText(func(f fieldRef, _ bool, p *string) {
		if len(*p) > 0 {
			switch f.part() {
			case "input", "tools":
			default:
				size += len(*p) + 8
			}
		}
	})
	for i := range s.Task {
		if o := s.Task[i].OutputFormat; o != nil {
			size += 2 * len(o.JSONSchema)
		}
	}
	return size
}

func layout(s *Spec) ([]prompt.Section, Retention) {
	// Every trusted body and item is written into one buffer and taken as
	// a substring of it: a Builder never changes bytes already written.
	var b strings.Builder
	b.Grow(s.layoutSize())
	mark := 0
	sections := make([]prompt.Section, 0, len(order))

	// System prompt: summary, the rules numbered in order, sources.
	if p := s.SystemPrompt; p != nil {
		bullet(&b, "Summary", p.Summary)
		for i, r := range p.Rules {
			marked(&b, i+1, r)
		}
		bulletList(&b, "Sources", p.Sources, "; ")
	}
	sections = append(sections, section(keySystemPrompt, &b, &mark, prioritySystemPrompt, prompt.TrimNever, prompt.RoleSystem, "systemPrompt"))

	if p := s.Identity; p != nil {
		bullet(&b, "Name", p.Name)
		bullet(&b, "Persona", p.PersonaID)
		bullet(&b, "Role", p.Role)
		bullet(&b, "Summary", p.Summary)
		bulletList(&b, "Traits", p.Traits, "; ")
		bullet(&b, "Tone", p.Tone)
		bulletList(&b, "Style", p.StyleGuidelines, "; ")
	}
	sections = append(sections, section(keyIdentity, &b, &mark, priorityIdentity, prompt.TrimDrop, prompt.RoleSystem, "identity"))

	if p := s.RequestingUser; p != nil {
		bullet(&b, "Name", p.DisplayName)
		bullet(&b, "Handle", p.Handle)
		bullet(&b, "User ID", p.UserID)
		if roles := joinLine(p.Roles, ", "); roles != "" {
			labelled(&b, "Roles", "["+roles+"]")
		}
		bullet(&b, "Tier", p.Tier)
		switch loc, tz := oneLine(p.Locale), oneLine(p.Timezone); {
		case loc != "" && tz != "":
			line(&b, "- Locale: "+loc+"; TZ: "+tz)
		case loc != "":
			line(&b, "- Locale: "+loc)
		case tz != "":
			line(&b, "- TZ: "+tz)
		}
	}
	sections = append(sections, section(keyRequestingUser, &b, &mark, priorityRequestingUser, prompt.TrimDrop, prompt.RoleUser, "requestingUser"))

	ret := Retention{Mode: ModeSummary}
	st := s.ConversationState
	if st != nil {
		ret.Mode = cmp.Or(st.RenderMode, ModeSummary)
		ret.Messages = len(st.Transcript)
		if ret.Mode != ModeTranscript {
			bullet(&b, "Summary", st.Summary)
		}
		bullet(&b, "Scope", st.Scope)
	}
	state := section(keyConversationState, &b, &mark, priorityState, prompt.TrimDrop, prompt.RoleUser, "conversationState")
	if st != nil && ret.Mode != ModeSummary && len(st.Transcript) > 0 {
		state.Children = []prompt.Section{transcriptSection(&b, st, &ret)}
		mark = b.Len()
	}
	sections = append(sections, state)

	for _, i := range byPriority(len(s.Constraints), func(i int) int { return s.Constraints[i].Priority }) {
		c := &s.Constraints[i]
		marked(&b, cmp.Or(c.Priority, defaultPriority), c.Text)
	}
	sections = append(sections, section(keyConstraints, &b, &mark, priorityConstraints, prompt.TrimNever, prompt.RoleUser, "constraints"))

	task := section(keyTask, &b, &mark, priorityTask, prompt.TrimLowestRelevance, prompt.RoleUser, "task")
	task.Items = make([]prompt.Item, 0, len(s.Task))
	for _, i := range byPriority(len(s.Task), func(i int) int { return s.Task[i].Priority }) {
		t := &s.Task[i]
		p := cmp.Or(t.Priority, defaultPriority)
		task.Items = append(task.Items, prompt.Item{
			ID:        taskIDs.name(i),
			Text:      taskText(&b, t, p),
			Relevance: float64(6-p) / 5,
			Seq:       int64(i),
			Keep:      t.IsRequired(),
		})
	}
	for _, t := range s.Tools {
		task.Tools = append(task.Tools, prompt.Tool{Name: t.Name, Description: oneLine(t.Description), Parameters: t.Parameters})
	}
	sections = append(sections, task)

	input := prompt.Section{
		Key: keyInput, Title: titleOf(keyInput), Body: clean(s.Input.UserQuery),
		Priority: priorityInput, Trust: prompt.Untrusted, Role: prompt.RoleUser, Trim: prompt.TrimNever, Source: "input.userQuery",
	}
	input.Children = make([]prompt.Section, 0, 1+len(s.Input.Attachments))
	if c := clean(s.Input.Context); c != "" {
		input.Children = append(input.Children, prompt.Section{
			Key: keyContext, Title: "Context", Body: c,
			Priority: priorityContext, Trust: prompt.Untrusted, Role: prompt.RoleUser, Trim: prompt.TrimTruncate, Source: "input.context",
		})
	}
	for i, a := range s.Input.Attachments {
		title := "Attachment: " + oneLine(a.Name) + " (" + oneLine(a.Mime) + ")"
		if a.URI != "" {
			title = "Attachment: " + oneLine(a.Name) + " (" + oneLine(a.Mime) + ", " + oneLine(a.URI) + ")"
		}
		c := prompt.Section{
			Key: attachmentKeys.name(i), Title: title,
			Priority: priorityAttachment, Trust: prompt.Untrusted, Role: prompt.RoleUser, Trim: prompt.TrimDrop,
			Source: attachmentSources.name(i),
		}
		if a.BytesBase64 != "" && textual(a.Mime) {
			if data, err := decodeBase64(a.BytesBase64); err == nil && utf8.Valid(data) {
				if text, err := prompt.Normalize(data); err == nil {
					c.Body = clean(text)
					c.Trim = prompt.TrimTruncate
				}
			}
		}
		input.Children = append(input.Children, c)
	}
	sections = append(sections, input)
	return sections, ret
}

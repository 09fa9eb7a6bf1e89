package canonical

import (
	"strconv"
	"strings"
)

// fieldRef names a field of a spec, such as task[2].instruction, without
// building the string until it is needed.
type fieldRef struct {
	list string // the field, or the list the field is in
	i    int    // the index in list, or -1
	name string // the field of the list item, if any
	sub  int    // 1 + the index in the list name, or 0
}

func (f fieldRef) String() string {
	if f.i < 0 {
		return f.list
	}
	s := f.list + "[" + strconv.Itoa(f.i) + "]"
	if f.name != "" {
		s += "." + f.name
	}
	if f.sub > 0 {
		s += "[" + strconv.Itoa(f.sub-1) + "]"
	}
	return s
}

// entry reports whether the field is an entry of a list of text, such as
// systemPrompt.rules[2] or constraints[0].tags[1].
func (f fieldRef) entry() bool { return f.i >= 0 && f.name == "" || f.sub > 0 }

// part returns the part of the spec the field is in: its top-level key.
func (f fieldRef) part() string {
	if i := strings.IndexByte(f.list, '.'); i >= 0 {
		return f.list[:i]
	}
	return f.list
}

func field(name string) fieldRef       { return fieldRef{list: name, i: -1} }
func item(list string, i int) fieldRef { return fieldRef{list: list, i: i} }
func itemField(list string, i int, name string) fieldRef {
	return fieldRef{list: list, i: i, name: name}
}

// eachText calls f with a pointer to every text field of s, in document
// order; personal is true for the conversation state's fields, which are
// redacted of personal data as well as secrets. JSON Schemas are not
// text fields.
func (s *Spec) eachText(f func(at fieldRef, personal bool, p *string)) {
	if p := s.SystemPrompt; p != nil {
		f(field("systemPrompt.summary"), false, &p.Summary)
		for i := range p.Rules {
			f(item("systemPrompt.rules", i), false, &p.Rules[i])
		}
		for i := range p.Sources {
			f(item("systemPrompt.sources", i), false, &p.Sources[i])
		}
	}
	if p := s.Identity; p != nil {
		f(field("identity.personaId"), false, &p.PersonaID)
		f(field("identity.name"), false, &p.Name)
		f(field("identity.role"), false, &p.Role)
		f(field("identity.summary"), false, &p.Summary)
		for i := range p.Traits {
			f(item("identity.traits", i), false, &p.Traits[i])
		}
		f(field("identity.tone"), false, &p.Tone)
		for i := range p.StyleGuidelines {
			f(item("identity.styleGuidelines", i), false, &p.StyleGuidelines[i])
		}
	}
	if p := s.RequestingUser; p != nil {
		f(field("requestingUser.userId"), false, &p.UserID)
		f(field("requestingUser.handle"), false, &p.Handle)
		f(field("requestingUser.displayName"), false, &p.DisplayName)
		for i := range p.Roles {
			f(item("requestingUser.roles", i), false, &p.Roles[i])
		}
		f(field("requestingUser.locale"), false, &p.Locale)
		f(field("requestingUser.timezone"), false, &p.Timezone)
		f(field("requestingUser.tier"), false, &p.Tier)
	}
	if p := s.ConversationState; p != nil {
		f(field("conversationState.summary"), true, &p.Summary)
		f(field("conversationState.scope"), true, &p.Scope)
		for i := range p.Transcript {
			m := &p.Transcript[i]
			f(itemField("conversationState.transcript", i, "role"), false, &m.Role)
			f(itemField("conversationState.transcript", i, "content"), true, &m.Content)
			f(itemField("conversationState.transcript", i, "at"), false, &m.At)
		}
		f(field("conversationState.renderMode"), false, &p.RenderMode)
	}
	for i := range s.Constraints {
		c := &s.Constraints[i]
		f(itemField("constraints", i, "id"), false, &c.ID)
		f(itemField("constraints", i, "text"), false, &c.Text)
		for j := range c.Tags {
			f(fieldRef{list: "constraints", i: i, name: "tags", sub: j + 1}, false, &c.Tags[j])
		}
		f(itemField("constraints", i, "source"), false, &c.Source)
	}
	for i := range s.Task {
		t := &s.Task[i]
		f(itemField("task", i, "id"), false, &t.ID)
		f(itemField("task", i, "instruction"), false, &t.Instruction)
		if o := t.OutputFormat; o != nil {
			f(itemField("task", i, "outputFormat.type"), false, &o.Type)
			f(itemField("task", i, "outputFormat.name"), false, &o.Name)
			f(itemField("task", i, "outputFormat.example"), false, &o.Example)
		}
	}
	f(field("input.userQuery"), false, &s.Input.UserQuery)
	for i := range s.Input.Attachments {
		a := &s.Input.Attachments[i]
		f(itemField("input.attachments", i, "name"), false, &a.Name)
		f(itemField("input.attachments", i, "mime"), false, &a.Mime)
		f(itemField("input.attachments", i, "uri"), false, &a.URI)
	}
	f(field("input.context"), false, &s.Input.Context)
	for i := range s.Tools {
		f(itemField("tools", i, "name"), false, &s.Tools[i].Name)
		f(itemField("tools", i, "description"), false, &s.Tools[i].Description)
	}
}

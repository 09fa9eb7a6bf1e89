package provider

import (
	"strings"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/schema"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Tally is a request's size in tokens, counted the way its provider
// counts what it receives: the text of each message as the body carries
// it, the framing around the messages, the native tool definitions and
// the output schema.
type Tally struct {
	// Counter names the counter; Exact is false when any part is an
	// estimate (see docs/PROVIDERS.md for which parts are).
	Counter string `json:"counter"`
	Exact   bool   `json:"exact"`
	// Text is the tokens of the messages' text as the body carries it:
	// one message a side for the OpenAI formats, the stable and the
	// volatile block of each side for Anthropic and Gemini.
	Text int `json:"text"`
	// Framing is what the provider adds around the messages and to prime
	// the reply.
	Framing int `json:"framing"`
	// Tools is the native tool definitions, with what the provider adds
	// to present them.
	Tools int `json:"tools"`
	// Output is the output schema.
	Output int `json:"output"`
	// Total is the sum of the above.
	Total int `json:"total"`
}

// Sizer counts the parts of a request of one format, piece by piece, so
// that a budget can price what it keeps and drops. Count is the counter
// of the target model's tokens (a cached one, while fitting); Model
// chooses model-specific figures such as Anthropic's tool-use system
// prompt.
type Sizer struct {
	Format Format
	Model  string
	Count  func(string) int
}

// NewSizer returns the Sizer of format f and model with counter c.
func NewSizer(f Format, model string, c tokenizer.Counter) Sizer {
	return Sizer{Format: f, Model: model, Count: c.Count}
}

// Tally counts req as its provider receives it. Exact and Counter are
// left for the caller, who knows the counter.
func (s Sizer) Tally(req *Request) Tally {
	t := Tally{Text: s.Text(req), Framing: s.Framing(req), Tools: s.Tools(req), Output: s.Output(req.Output)}
	t.Total = t.Text + t.Framing + t.Tools + t.Output
	return t
}

// Count counts req as format f's provider receives it, with counter c.
func Count(f Format, req Request, c tokenizer.Counter) Tally {
	t := NewSizer(f, req.Model, c).Tally(&req)
	t.Counter, t.Exact = c.Name(), c.Exact() && f == OpenAIChat
	return t
}

// Messages returns the texts the body carries for req, in order: for the
// OpenAI formats the system-side message (when there is one) and the
// user message, each its side's parts joined by the separator; for
// Anthropic and Gemini each side's blocks, the stable run and then the
// rest, as Encode writes them.
func (s Sizer) Messages(req *Request) []string {
	system, user := nonEmpty(req.System), nonEmpty(req.User)
	sep := req.Separator
	if sep == "" {
		sep = "\n\n"
	}
	var out []string
	switch s.Format {
	case Anthropic, Gemini:
		sysStable, userStable := leadingStable(system), 0
		if sysStable == len(system) {
			userStable = leadingStable(user)
		}
		for _, side := range [][2][]Part{runs(system, sysStable), runs(user, userStable)} {
			for _, run := range side {
				if len(run) > 0 {
					out = append(out, joinParts(run, sep))
				}
			}
		}
	default:
		if len(system) > 0 {
			out = append(out, joinParts(system, sep))
		}
		out = append(out, joinParts(user, sep))
	}
	return out
}

// messageCount is how many messages the body has: a system-side one when
// there is system text, and the user message.
func messageCount(req *Request) int {
	if len(nonEmpty(req.System)) > 0 {
		return 2
	}
	return 1
}

func joinParts(parts []Part, sep string) string {
	switch len(parts) {
	case 0:
		return ""
	case 1:
		return parts[0].Text
	}
	n := len(sep) * (len(parts) - 1)
	for _, p := range parts {
		n += len(p.Text)
	}
	var b strings.Builder
	b.Grow(n)
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// Text counts the text of req's messages as the body carries them.
func (s Sizer) Text(req *Request) int {
	n := 0
	for _, m := range s.Messages(req) {
		if m != "" {
			n += s.Count(m)
		}
	}
	return n
}

// Framing is what the provider adds around req's messages and to prime
// the reply: OpenAI's chat format spends 3 tokens framing each message
// and 1 on its role, and 3 priming the reply; Tessera uses the same
// figure, as an estimate, for the other formats.
func (s Sizer) Framing(req *Request) int {
	return tokenizer.MessageOverhead(messageCount(req))
}

// Tools counts req's native tool definitions with what the provider adds
// to present them; 0 without tools.
//
// OpenAI renders function definitions as a TypeScript namespace in the
// system message (see FunctionsText); the request then costs that text,
// 9 tokens more, 4 fewer when it has a system message, which gains a
// trailing newline. Anthropic adds a tool-use system prompt of a
// documented size per model, and Tessera counts each definition's JSON
// as the body carries it; Gemini is counted the same way, without a
// system prompt.
func (s Sizer) Tools(req *Request) int {
	if len(req.Tools) == 0 {
		return 0
	}
	switch s.Format {
	case OpenAIChat, OpenAIResponses:
		n := s.Count(FunctionsText(req.Tools)) + 9
		if sys := nonEmpty(req.System); len(sys) > 0 {
			text := s.Messages(req)[0]
			n += s.Count(text+"\n") - s.Count(text) - 4
		}
		return n
	case Anthropic:
		n := AnthropicToolPrompt(s.Model)
		for _, t := range req.Tools {
			n += s.Tool(t)
		}
		return n
	}
	n := 0
	for _, t := range req.Tools {
		n += s.Tool(t)
	}
	return n
}

// Tool counts one tool definition on its own, without what frames the
// list: for OpenAI, its part of the namespace text; for Anthropic and
// Gemini, its JSON as the body carries it. A budget uses it to price a
// tool it may drop; Tools gives the exact total.
func (s Sizer) Tool(t prompt.Tool) int {
	switch s.Format {
	case OpenAIChat, OpenAIResponses:
		var b strings.Builder
		writeFunction(&b, t)
		return s.Count(b.String())
	}
	var b []byte
	b = append(b, `{"name":`...)
	b = schema.AppendString(b, t.Name)
	if t.Description != "" {
		b = append(b, `,"description":`...)
		b = schema.AppendString(b, t.Description)
	}
	if len(t.Parameters) > 0 {
		b = append(b, `,"parameters":`...)
		if c, err := schema.AppendCompact(b, t.Parameters); err == nil {
			b = c
		} else {
			b = append(b, t.Parameters...)
		}
	}
	return s.Count(string(append(b, '}')))
}

// Output counts the output schema, compacted as the body carries it; 0
// for none. No provider documents this cost: it is an estimate for every
// format.
func (s Sizer) Output(o *Output) int {
	if o == nil || len(o.Schema) == 0 {
		return 0
	}
	b, err := schema.AppendCompact(nil, o.Schema)
	if err != nil {
		b = o.Schema
	}
	return s.Count(string(b))
}

// AnthropicToolPrompt is the size of the system prompt Anthropic adds to
// a request with tools (tool_choice auto, the default), by model, as
// Anthropic's tool-use pricing documents it: 346 tokens for the Claude 4
// family and Claude 3.7 Sonnet, 264 for Claude 3.5 Haiku, 530 for
// Claude 3 Opus, 159 for Claude 3 Sonnet, 264 for Claude 3 Haiku. A
// model it does not know gets the current family's 346.
func AnthropicToolPrompt(model string) int {
	m := strings.ToLower(model)
	switch {
	case strings.Contains(m, "claude-3-5-haiku"), strings.Contains(m, "claude-3-haiku"):
		return 264
	case strings.Contains(m, "claude-3-opus"):
		return 530
	case strings.Contains(m, "claude-3-sonnet"):
		return 159
	}
	return 346
}

// FunctionsText is how OpenAI presents function definitions to the
// model: a TypeScript namespace, each function a type whose argument
// object lists the parameters' properties, with the descriptions of the
// function and of its top-level properties as comments. Counting it
// gives what the definitions cost; docs/PROVIDERS.md says how it was
// checked against measured figures.
func FunctionsText(tools []prompt.Tool) string {
	var b strings.Builder
	b.WriteString("namespace functions {\n\n")
	for _, t := range tools {
		writeFunction(&b, t)
	}
	b.WriteString("} // namespace functions")
	return b.String()
}

// writeFunction writes one function of the namespace, with the blank
// line after it.
func writeFunction(b *strings.Builder, t prompt.Tool) {
	if t.Description != "" {
		b.WriteString("// ")
		b.WriteString(t.Description)
		b.WriteByte('\n')
	}
	var params schema.Value
	if len(t.Parameters) > 0 {
		params, _ = schema.Parse(t.Parameters)
	}
	props := params.Get("properties")
	if props == nil || props.Kind != schema.Object || len(props.Members) == 0 {
		b.WriteString("type ")
		b.WriteString(t.Name)
		b.WriteString(" = () => any;\n\n")
		return
	}
	b.WriteString("type ")
	b.WriteString(t.Name)
	b.WriteString(" = (_: {\n")
	writeProperties(b, &params, 0)
	b.WriteString("\n}) => any;\n\n")
}

// writeProperties writes obj's properties, one a line at indent spaces,
// each "name: type," or "name?: type," when not required, the
// descriptions of the outermost ones as comments above them.
func writeProperties(b *strings.Builder, obj *schema.Value, indent int) {
	props := obj.Get("properties")
	if props == nil || props.Kind != schema.Object {
		return
	}
	required := map[string]bool{}
	if r := obj.Get("required"); r != nil && r.Kind == schema.Array {
		for _, v := range r.Items {
			if v.Kind == schema.String {
				required[v.Str] = true
			}
		}
	}
	pad := strings.Repeat(" ", indent)
	for i := range props.Members {
		m := &props.Members[i]
		if i > 0 {
			b.WriteByte('\n')
		}
		if d := m.Value.Get("description"); d != nil && d.Kind == schema.String && d.Str != "" && indent < 2 {
			b.WriteString(pad)
			b.WriteString("// ")
			b.WriteString(d.Str)
			b.WriteByte('\n')
		}
		b.WriteString(pad)
		b.WriteString(m.Key)
		if !required[m.Key] {
			b.WriteByte('?')
		}
		b.WriteString(": ")
		writeType(b, &m.Value, indent)
		b.WriteByte(',')
	}
}

// writeType writes a property's type in TypeScript: enums as unions of
// their values, objects as braces around their properties, arrays as
// their item type and "[]", anyOf as a union; anything else as "any".
func writeType(b *strings.Builder, v *schema.Value, indent int) {
	if any := v.Get("anyOf"); any != nil && any.Kind == schema.Array {
		for i := range any.Items {
			if i > 0 {
				b.WriteString(" | ")
			}
			writeType(b, &any.Items[i], indent)
		}
		return
	}
	typ := ""
	if t := v.Get("type"); t != nil && t.Kind == schema.String {
		typ = t.Str
	}
	enum := v.Get("enum")
	if enum != nil && (enum.Kind != schema.Array || len(enum.Items) == 0) {
		enum = nil
	}
	switch typ {
	case "string":
		if enum != nil {
			for i, e := range enum.Items {
				if i > 0 {
					b.WriteString(" | ")
				}
				b.WriteByte('"')
				b.WriteString(e.Str)
				b.WriteByte('"')
			}
			return
		}
		b.WriteString("string")
	case "number", "integer":
		if enum != nil {
			for i, e := range enum.Items {
				if i > 0 {
					b.WriteString(" | ")
				}
				b.WriteString(e.Str)
			}
			return
		}
		b.WriteString("number")
	case "boolean", "null":
		b.WriteString(typ)
	case "object":
		b.WriteString("{\n")
		writeProperties(b, v, indent+2)
		b.WriteString("\n}")
	case "array":
		if items := v.Get("items"); items != nil && items.Kind == schema.Object {
			writeType(b, items, indent)
			b.WriteString("[]")
			return
		}
		b.WriteString("any[]")
	default:
		b.WriteString("any")
	}
}

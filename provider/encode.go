package provider

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/schema"
	"github.com/tessera-dev/tessera/tokenizer"
)

// Options say how Encode writes a body, beyond what the request holds.
type Options struct {
	// SystemRole is the role of the system-side message in the OpenAI
	// formats: "developer" (the default, what OpenAI's current models
	// expect) or "system" (for compatible servers that reject
	// "developer"). Other formats ignore it.
	SystemRole string
	// CacheBreakpoints places Anthropic cache_control breakpoints
	// ({"type": "ephemeral"}) at the end of the stable prefix: on the
	// last tool, the last stable system block and the last stable user
	// block, never more than the API's four. Other formats cache a
	// prefix on their own and ignore it.
	CacheBreakpoints bool
	// Counter counts the stable prefix's tokens; nil leaves
	// Body.StablePrefixTokens zero.
	Counter tokenizer.Counter
}

// Body is an encoded request body and what is known of its cacheable
// prefix.
type Body struct {
	// Format is the API the body is for.
	Format Format
	// JSON is the body: compact, keys in the order docs/providers.md
	// gives, the same bytes for the same request and options.
	JSON []byte
	// StablePrefixHash is the prompt hash (prompt.Hash) of the stable
	// prefix's serialisation (see docs/providers.md), the same for every
	// format; empty when nothing is stable and there are no tools or
	// output schema. Equal hashes mean a provider can reuse its cache.
	StablePrefixHash string
	// StablePrefixTokens is the stable prefix's size as Options.Counter
	// counts it: the tools' names, descriptions and parameters, the
	// output schema and the stable parts' text, without the tokens a
	// provider adds to frame them. Zero without a counter.
	StablePrefixTokens int
	// Counter is the name of the counter that counted the tokens, empty
	// without one.
	Counter string
	// CacheBreakpoints is how many cache_control breakpoints the body
	// has (Anthropic only).
	CacheBreakpoints int
}

// StrictError reports a schema that OpenAI's strict mode would reject,
// found before the request is sent.
type StrictError struct {
	// Schema names the schema: "output schema" or `tool "name" parameters`.
	Schema string
	// Violations are every problem schema.CheckStrict found.
	Violations []schema.Violation
}

func (e *StrictError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "provider: %s breaks OpenAI strict mode in %d place", e.Schema, len(e.Violations))
	if len(e.Violations) != 1 {
		b.WriteByte('s')
	}
	for _, v := range e.Violations {
		b.WriteString("; ")
		b.WriteString(v.String())
	}
	b.WriteString(" (fix the schema, run schema.Strictify on it, or turn strict off)")
	return b.String()
}

// Encode writes req as the request body of format f. It checks what the
// providers would reject, each problem an error naming where it is: a
// request with no user-side text, a tool name that is empty, repeated or
// not 1 to 64 letters, digits, '_' or '-', a schema that is not a JSON
// object, an output name that is not such a name either, and, for the
// OpenAI formats, a strict schema that breaks strict mode (a
// *StrictError). Encode does no I/O; its target is under 20 µs for a
// realistic sectioned request (see BenchmarkEncode).
func Encode(f Format, req Request, opts Options) (Body, error) {
	if !f.valid() {
		return Body{}, fmt.Errorf("provider: unknown format %s: use one of %v", f, Formats())
	}
	e := encoder{f: f, req: &req, opts: &opts}
	if err := e.prepare(); err != nil {
		return Body{}, err
	}
	e.buf = make([]byte, 0, e.size())
	switch f {
	case OpenAIChat:
		e.openAIChat()
	case OpenAIResponses:
		e.openAIResponses()
	case Anthropic:
		e.anthropic()
	case Gemini:
		e.gemini()
	}
	b := Body{Format: f, JSON: e.buf, CacheBreakpoints: e.breakpoints}
	b.StablePrefixHash, b.StablePrefixTokens = e.prefix()
	if opts.Counter != nil {
		b.Counter = opts.Counter.Name()
	}
	return b, nil
}

// encoder holds one Encode call's state.
type encoder struct {
	f    Format
	req  *Request
	opts *Options
	buf  []byte

	role         string
	system, user []Part // the non-empty parts
	// sysStable and userStable are how many leading parts of each side
	// are in the stable prefix: the prefix ends at the first volatile
	// part, so user parts count only when every system part is stable.
	sysStable, userStable int
	schemas               []byte   // compacted tool parameters, then the output schema
	params                [][2]int // each tool's parameters in schemas; empty when none
	output                [2]int
	outputName            string
	breakpoints           int
}

func nonEmpty(parts []Part) []Part {
	for i, p := range parts {
		if p.Text == "" {
			out := append([]Part(nil), parts[:i]...)
			for _, q := range parts[i+1:] {
				if q.Text != "" {
					out = append(out, q)
				}
			}
			return out
		}
	}
	return parts
}

func leadingStable(parts []Part) int {
	for i, p := range parts {
		if !p.Stable {
			return i
		}
	}
	return len(parts)
}

// validName reports whether s is a name every provider accepts for a
// function or schema: 1 to 64 ASCII letters, digits, '_' or '-'.
func validName(s string) bool {
	if s == "" || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

func (e *encoder) prepare() error {
	switch e.opts.SystemRole {
	case "", "developer":
		e.role = "developer"
	case "system":
		e.role = "system"
	default:
		return fmt.Errorf("provider: system role %q: use \"developer\" or \"system\"", e.opts.SystemRole)
	}
	if e.req.MaxTokens < 0 {
		return fmt.Errorf("provider: max tokens %d is negative: use 0 for the provider's default", e.req.MaxTokens)
	}
	e.system, e.user = nonEmpty(e.req.System), nonEmpty(e.req.User)
	if len(e.user) == 0 {
		return errors.New("provider: the request has no user-side text: every provider needs a user message; put at least one section on the user side")
	}
	e.sysStable = leadingStable(e.system)
	if e.sysStable == len(e.system) {
		e.userStable = leadingStable(e.user)
	}
	strict := e.f == OpenAIChat || e.f == OpenAIResponses
	e.params = make([][2]int, len(e.req.Tools))
	n := 0
	for _, t := range e.req.Tools {
		n += len(t.Parameters)
	}
	if e.req.Output != nil {
		n += len(e.req.Output.Schema)
	}
	e.schemas = make([]byte, 0, n)
	for i, t := range e.req.Tools {
		if !validName(t.Name) {
			return fmt.Errorf("provider: tool %d name %q: use 1 to 64 letters, digits, '_' or '-'", i+1, t.Name)
		}
		for _, u := range e.req.Tools[:i] {
			if u.Name == t.Name {
				return fmt.Errorf("provider: tool %q is listed twice: tool names must be unique", t.Name)
			}
		}
		if len(bytes.TrimSpace(t.Parameters)) == 0 {
			continue
		}
		start := len(e.schemas)
		var err error
		if e.schemas, err = appendSchema(e.schemas, t.Parameters); err != nil {
			return fmt.Errorf("provider: tool %q parameters: %w", t.Name, err)
		}
		e.params[i] = [2]int{start, len(e.schemas)}
		if strict && e.req.StrictTools {
			if vs := schema.CheckStrict(e.schemas[start:]); len(vs) > 0 {
				return &StrictError{Schema: fmt.Sprintf("tool %q parameters", t.Name), Violations: vs}
			}
		}
	}
	if o := e.req.Output; o != nil {
		e.outputName = o.Name
		if e.outputName == "" {
			e.outputName = "output"
		}
		if !validName(e.outputName) {
			return fmt.Errorf("provider: output name %q: use 1 to 64 letters, digits, '_' or '-'", o.Name)
		}
		start := len(e.schemas)
		var err error
		if e.schemas, err = appendSchema(e.schemas, o.Schema); err != nil {
			return fmt.Errorf("provider: output schema %q: %w", e.outputName, err)
		}
		e.output = [2]int{start, len(e.schemas)}
		if strict && o.Strict {
			if vs := schema.CheckStrict(e.schemas[start:]); len(vs) > 0 {
				return &StrictError{Schema: "output schema", Violations: vs}
			}
		}
	}
	return nil
}

// appendSchema appends the JSON object src to dst, compacted; the order
// of its members is kept.
func appendSchema(dst, src []byte) ([]byte, error) {
	out, err := schema.AppendCompact(dst, src)
	if err != nil {
		return dst, err
	}
	if len(out) == len(dst) || out[len(dst)] != '{' {
		return dst, errors.New("not a JSON object: a schema here must be an object such as {\"type\": \"object\", ...}")
	}
	return out, nil
}

// size estimates the body's length, to allocate it once.
func (e *encoder) size() int {
	n := 256 + 2*len(e.schemas) + len(e.req.Model)
	for _, t := range e.req.Tools {
		n += 64 + len(t.Name) + len(t.Description)
	}
	for _, p := range e.system {
		n += 32 + len(p.Text) + len(p.Text)/16
	}
	for _, p := range e.user {
		n += 32 + len(p.Text) + len(p.Text)/16
	}
	return n
}

func (e *encoder) raw(s string)         { e.buf = append(e.buf, s...) }
func (e *encoder) str(s string)         { e.buf = schema.AppendString(e.buf, s) }
func (e *encoder) int(n int)            { e.buf = strconv.AppendInt(e.buf, int64(n), 10) }
func (e *encoder) schema(at [2]int)     { e.buf = append(e.buf, e.schemas[at[0]:at[1]]...) }
func (e *encoder) hasParams(i int) bool { return e.params[i][1] > e.params[i][0] }

// joined writes parts' texts as one JSON string, separated by the
// request's separator (a blank line, "\n\n", by default).
func (e *encoder) joined(parts []Part) {
	e.buf = append(e.buf, '"')
	for i, p := range parts {
		if i > 0 {
			if e.req.Separator == "" {
				e.raw(`\n\n`)
			} else {
				n := len(e.buf)
				e.buf = schema.AppendString(e.buf, e.req.Separator)
				copy(e.buf[n:], e.buf[n+1:len(e.buf)-1])
				e.buf = e.buf[:len(e.buf)-2]
			}
		}
		n := len(e.buf)
		e.buf = schema.AppendString(e.buf, p.Text)
		// Drop the quotes AppendString added around this piece.
		copy(e.buf[n:], e.buf[n+1:len(e.buf)-1])
		e.buf = e.buf[:len(e.buf)-2]
	}
	e.buf = append(e.buf, '"')
}

// runs splits a side's parts where the stable prefix ends: the stable run
// and the rest, either possibly empty.
func runs(parts []Part, stable int) [2][]Part { return [2][]Part{parts[:stable], parts[stable:]} }

// emptyParams is the parameters schema of a tool that takes none, for the
// formats that require one.
const emptyParams = `{"type":"object","properties":{},"additionalProperties":false}`

// openAIChat writes
// {"model","tools":[{"type":"function","function":{"name","description","parameters","strict"}}],
// "messages":[{"role":"developer"|"system","content"},{"role":"user","content"}],
// "response_format":{"type":"json_schema","json_schema":{"name","schema","strict"}},
// "max_completion_tokens"}.
func (e *encoder) openAIChat() {
	e.raw(`{`)
	e.model()
	if len(e.req.Tools) > 0 {
		e.raw(`"tools":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"type":"function","function":{"name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			if e.hasParams(i) {
				e.raw(`,"parameters":`)
				e.schema(e.params[i])
			}
			if e.req.StrictTools {
				e.raw(`,"strict":true`)
			}
			e.raw(`}}`)
		}
		e.raw(`],`)
	}
	e.raw(`"messages":[`)
	if len(e.system) > 0 {
		e.raw(`{"role":`)
		e.str(e.role)
		e.raw(`,"content":`)
		e.joined(e.system)
		e.raw(`},`)
	}
	e.raw(`{"role":"user","content":`)
	e.joined(e.user)
	e.raw(`}]`)
	e.openAIOutput(`,"response_format":{"type":"json_schema","json_schema":{"name":`, `,"max_completion_tokens":`)
	e.raw(`}`)
}

// openAIResponses writes
// {"model","tools":[{"type":"function","name","description","parameters","strict"}],
// "input":[{"type":"message","role":"developer"|"system","content"},{"type":"message","role":"user","content"}],
// "text":{"format":{"type":"json_schema","name","schema","strict"}},"max_output_tokens"}.
func (e *encoder) openAIResponses() {
	e.raw(`{`)
	e.model()
	if len(e.req.Tools) > 0 {
		e.raw(`"tools":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"type":"function","name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			e.raw(`,"parameters":`)
			if e.hasParams(i) {
				e.schema(e.params[i])
			} else {
				e.raw(emptyParams)
			}
			e.raw(`,"strict":`)
			e.raw(strconv.FormatBool(e.req.StrictTools))
			e.raw(`}`)
		}
		e.raw(`],`)
	}
	e.raw(`"input":[`)
	if len(e.system) > 0 {
		e.raw(`{"type":"message","role":`)
		e.str(e.role)
		e.raw(`,"content":`)
		e.joined(e.system)
		e.raw(`},`)
	}
	e.raw(`{"type":"message","role":"user","content":`)
	e.joined(e.user)
	e.raw(`}]`)
	e.openAIOutput(`,"text":{"format":{"type":"json_schema","name":`, `,"max_output_tokens":`)
	e.raw(`}`)
}

// model writes the "model" member and its comma, when there is a model.
func (e *encoder) model() {
	if e.req.Model != "" {
		e.raw(`"model":`)
		e.str(e.req.Model)
		e.raw(`,`)
	}
}

// openAIOutput writes the structured-output member (opened by format,
// which ends just before the name) and the reply cap (named by maxKey),
// the two members both OpenAI formats end with.
func (e *encoder) openAIOutput(format, maxKey string) {
	if o := e.req.Output; o != nil {
		e.raw(format)
		e.str(e.outputName)
		e.raw(`,"schema":`)
		e.schema(e.output)
		if o.Strict {
			e.raw(`,"strict":true`)
		}
		e.raw(`}}`)
	}
	if e.req.MaxTokens > 0 {
		e.raw(maxKey)
		e.int(e.req.MaxTokens)
	}
}

const cacheControl = `,"cache_control":{"type":"ephemeral"}`

// anthropic writes
// {"model","max_tokens","tools":[{"name","description","input_schema","strict","cache_control"}],
// "system":[{"type":"text","text","cache_control"}],
// "messages":[{"role":"user","content":[{"type":"text","text","cache_control"}]}],
// "output_config":{"format":{"type":"json_schema","schema"}}}.
func (e *encoder) anthropic() {
	mark := e.opts.CacheBreakpoints
	e.raw(`{`)
	e.model()
	e.raw(`"max_tokens":`)
	if e.req.MaxTokens > 0 {
		e.int(e.req.MaxTokens)
	} else {
		e.int(DefaultMaxTokens)
	}
	if len(e.req.Tools) > 0 {
		e.raw(`,"tools":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			e.raw(`,"input_schema":`)
			if e.hasParams(i) {
				e.schema(e.params[i])
			} else {
				e.raw(emptyParams)
			}
			if e.req.StrictTools {
				e.raw(`,"strict":true`)
			}
			if mark && i == len(e.req.Tools)-1 {
				e.raw(cacheControl)
				e.breakpoints++
			}
			e.raw(`}`)
		}
		e.raw(`]`)
	}
	if len(e.system) > 0 {
		e.raw(`,"system":`)
		e.textBlocks(e.system, e.sysStable)
	}
	e.raw(`,"messages":[{"role":"user","content":`)
	e.textBlocks(e.user, e.userStable)
	e.raw(`}]`)
	if e.req.Output != nil {
		e.raw(`,"output_config":{"format":{"type":"json_schema","schema":`)
		e.schema(e.output)
		e.raw(`}}`)
	}
	e.raw(`}`)
}

// textBlocks writes a side as Anthropic text blocks: the stable run, then
// the rest, each joined into one block, the stable one marked as a
// breakpoint when asked.
func (e *encoder) textBlocks(parts []Part, stable int) {
	e.blocks(parts, stable, `{"type":"text","text":`, e.opts.CacheBreakpoints)
}

// textParts writes a side as Gemini parts: the stable run, then the rest.
func (e *encoder) textParts(parts []Part, stable int) {
	e.blocks(parts, stable, `{"text":`, false)
}

// blocks writes a JSON array with one object per non-empty run of parts
// (the stable run, then the rest), each opened with open and holding the
// run's joined text; mark puts a cache breakpoint on the stable run.
func (e *encoder) blocks(parts []Part, stable int, open string, mark bool) {
	e.raw(`[`)
	first := true
	for i, run := range runs(parts, stable) {
		if len(run) == 0 {
			continue
		}
		if !first {
			e.raw(`,`)
		}
		first = false
		e.raw(open)
		e.joined(run)
		if i == 0 && mark {
			e.raw(cacheControl)
			e.breakpoints++
		}
		e.raw(`}`)
	}
	e.raw(`]`)
}

// gemini writes
// {"tools":[{"functionDeclarations":[{"name","description","parametersJsonSchema"}]}],
// "systemInstruction":{"parts":[{"text"}]},"contents":[{"role":"user","parts":[{"text"}]}],
// "generationConfig":{"responseMimeType","responseJsonSchema","maxOutputTokens"}}.
func (e *encoder) gemini() {
	e.raw(`{`)
	if len(e.req.Tools) > 0 {
		e.raw(`"tools":[{"functionDeclarations":[`)
		for i, t := range e.req.Tools {
			if i > 0 {
				e.raw(`,`)
			}
			e.raw(`{"name":`)
			e.str(t.Name)
			if t.Description != "" {
				e.raw(`,"description":`)
				e.str(t.Description)
			}
			if e.hasParams(i) {
				e.raw(`,"parametersJsonSchema":`)
				e.schema(e.params[i])
			}
			e.raw(`}`)
		}
		e.raw(`]}],`)
	}
	if len(e.system) > 0 {
		e.raw(`"systemInstruction":{"parts":`)
		e.textParts(e.system, e.sysStable)
		e.raw(`},`)
	}
	e.raw(`"contents":[{"role":"user","parts":`)
	e.textParts(e.user, e.userStable)
	e.raw(`}]`)
	if e.req.Output != nil || e.req.MaxTokens > 0 {
		e.raw(`,"generationConfig":{`)
		if e.req.Output != nil {
			e.raw(`"responseMimeType":"application/json","responseJsonSchema":`)
			e.schema(e.output)
			if e.req.MaxTokens > 0 {
				e.raw(`,`)
			}
		}
		if e.req.MaxTokens > 0 {
			e.raw(`"maxOutputTokens":`)
			e.int(e.req.MaxTokens)
		}
		e.raw(`}`)
	}
	e.raw(`}`)
}

// prefixVersion opens the stable prefix's serialisation; it changes when
// the serialisation does.
const prefixVersion = "tessera.stable-prefix.v1\n"

// prefix returns the hash and token count of the stable prefix: every
// tool, the output schema, then the stable parts of each side. The
// serialisation is a version line, then one line per item: "tool", then
// the name, the description and the compacted parameters; "output", then
// the name and the compacted schema; "system" or "user", then the key and
// the text. Each field is a netstring ("<length>:<bytes>,"), so no text
// can be mistaken for a boundary.
func (e *encoder) prefix() (string, int) {
	stableSys, stableUser := e.system[:e.sysStable], e.user[:e.userStable]
	if len(e.req.Tools) == 0 && e.req.Output == nil && len(stableSys) == 0 && len(stableUser) == 0 {
		return "", 0
	}
	c := e.opts.Counter
	tokens := 0
	count := func(s string) {
		if c != nil && s != "" {
			tokens += c.Count(s)
		}
	}
	n := len(prefixVersion) + len(e.schemas) + len(e.outputName) + 32
	for _, t := range e.req.Tools {
		n += len(t.Name) + len(t.Description) + 32
	}
	for _, p := range stableSys {
		n += len(p.Key) + len(p.Text) + 32
	}
	for _, p := range stableUser {
		n += len(p.Key) + len(p.Text) + 32
	}
	b := make([]byte, 0, n)
	b = append(b, prefixVersion...)
	for i, t := range e.req.Tools {
		params := e.schemas[e.params[i][0]:e.params[i][1]]
		b = append(b, "tool "...)
		b = netstring(b, t.Name)
		b = netstring(b, t.Description)
		b = netstring(b, string(params))
		b = append(b, '\n')
		count(t.Name)
		count(t.Description)
		count(string(params))
	}
	if e.req.Output != nil {
		out := string(e.schemas[e.output[0]:e.output[1]])
		b = append(b, "output "...)
		b = netstring(b, e.outputName)
		b = netstring(b, out)
		b = append(b, '\n')
		count(out)
	}
	for _, side := range []struct {
		name  string
		parts []Part
	}{{"system", stableSys}, {"user", stableUser}} {
		for _, p := range side.parts {
			b = append(b, side.name...)
			b = append(b, ' ')
			b = netstring(b, p.Key)
			b = netstring(b, p.Text)
			b = append(b, '\n')
			count(p.Text)
		}
	}
	return prompt.Hash(string(b)), tokens
}

func netstring(b []byte, s string) []byte {
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, ':')
	b = append(b, s...)
	return append(b, ',')
}

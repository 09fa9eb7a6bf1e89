package provider

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"

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
	// MinCacheTokens, with CacheBreakpoints and a Counter, leaves out
	// each breakpoint whose prefix (the tools, the stable system text and
	// the stable user text up to it, as Counter counts them) is shorter
	// than this many tokens: Anthropic does not cache a prefix below the
	// model's minimum (provider.Model.MinCacheTokens). 0 places every
	// breakpoint.
	MinCacheTokens int
	// Counter counts the stable prefix's tokens; nil leaves
	// Body.StablePrefixTokens zero.
	Counter tokenizer.Counter
	// StrictChecked says the caller has already checked every schema it
	// marks strict (schema.Value.CheckStrict on the schema it parsed), so
	// Encode does not parse them again to check.
	StrictChecked bool
}

// Body is an encoded request body and what is known of its cacheable
// prefix.
type Body struct {
	// Format is the API the body is for.
	Format Format
	// JSON is the body: compact, keys in the order docs/PROVIDERS.md
	// gives, the same bytes for the same request and options.
	JSON []byte
	// StablePrefixHash is the prompt hash (prompt.Hash) of the stable
	// prefix's serialisation (see docs/PROVIDERS.md), the same for every
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
	// BreakpointsDropped is how many breakpoints were left out because
	// their prefix is shorter than Options.MinCacheTokens.
	BreakpointsDropped int
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
// request with no user-side text, a tool name that is repeated or that
// schema.CheckToolName refuses (1 to 64 letters, digits, '_' or '-',
// starting with a letter or '_'), a schema that is not a JSON object, an
// output name that is not 1 to 64 letters, digits, '_' or '-', and, for the
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
	if opts.Counter != nil {
		e.count()
	}
	e.placeBreakpoints()
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
	b := Body{Format: f, JSON: e.buf, CacheBreakpoints: e.breakpoints, BreakpointsDropped: e.dropped}
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
	// The stable prefix's tokens by part, as Options.Counter counts them.
	toolTokens, outputTokens, sysTokens, userTokens int
	// markTools, markSys and markUser say which Anthropic breakpoints to
	// place; dropped counts those left out for being under the minimum.
	markTools, markSys, markUser bool
	dropped                      int
	schemaStr                    string // schemas as a string, once needed
}

// count counts the stable prefix's tokens with Options.Counter: each
// tool's name, description and parameters, the output schema, and the
// text of each stable part.
func (e *encoder) count() {
	c := e.opts.Counter
	n := func(s string) int {
		if s == "" {
			return 0
		}
		return c.Count(s)
	}
	for i, t := range e.req.Tools {
		e.toolTokens += n(t.Name) + n(t.Description) + n(e.schemaText(e.params[i]))
	}
	if e.req.Output != nil {
		e.outputTokens = n(e.schemaText(e.output))
	}
	for _, p := range e.system[:e.sysStable] {
		e.sysTokens += n(p.Text)
	}
	for _, p := range e.user[:e.userStable] {
		e.userTokens += n(p.Text)
	}
}

// schemaText returns the compacted schema at at as a string, converting
// the encoder's schemas once for every caller.
func (e *encoder) schemaText(at [2]int) string {
	if len(e.schemaStr) != len(e.schemas) {
		e.schemaStr = string(e.schemas)
	}
	return e.schemaStr[at[0]:at[1]]
}

// placeBreakpoints decides which Anthropic breakpoints to place: each one
// the options ask for whose prefix (tools, then system, then user, as
// the cache reads them) reaches Options.MinCacheTokens.
func (e *encoder) placeBreakpoints() {
	if e.f != Anthropic || !e.opts.CacheBreakpoints {
		return
	}
	min := e.opts.MinCacheTokens
	if e.opts.Counter == nil {
		min = 0
	}
	at := e.toolTokens
	place := func(want bool, prefix int) bool {
		if !want {
			return false
		}
		if prefix < min {
			e.dropped++
			return false
		}
		return true
	}
	e.markTools = place(len(e.req.Tools) > 0, at)
	at += e.sysTokens
	e.markSys = place(e.sysStable > 0, at)
	at += e.userTokens
	e.markUser = place(e.userStable > 0, at)
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
// schema: 1 to 64 ASCII letters, digits, '_' or '-' (schema.ValidName).
// A tool name must also pass schema.CheckToolName.
func validName(s string) bool { return schema.ValidName(s) }

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
	strict := (e.f == OpenAIChat || e.f == OpenAIResponses) && !e.opts.StrictChecked
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
		if err := schema.CheckToolName(t.Name); err != nil {
			return fmt.Errorf("provider: tool %d name %q: %w", i+1, t.Name, err)
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

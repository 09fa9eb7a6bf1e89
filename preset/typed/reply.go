package typed

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/output"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// ReplyOptions are the choices of one ParseReplyWith call.
type ReplyOptions struct {
	// Extra, when set, overrides the template's policy for keys the
	// schema does not declare (output: extra:, forbid by default).
	Extra *output.Extra
	// Tolerant repairs what models often write that JSON is not (see
	// output.Spec.Tolerant); the result lists each repair.
	Tolerant bool
}

// ParseReply finds the declared output in a model's reply and checks it
// against the template's schema (design 003's parse_structured_output),
// as ParseReplyWith does with the template's own choices, and returns the
// value.
func (t *Template) ParseReply(reply []byte) (json.RawMessage, error) {
	res, err := t.ParseReplyWith(reply, ReplyOptions{})
	if err != nil {
		return nil, err
	}
	return res.Value, nil
}

// ParseReplyWith finds the declared output in a model's reply and checks
// it: the JSON in a fenced block, else a bare one, with prose around it
// allowed. For an object container the reply must hold an object; for an
// array, an array, bare or as {"items": [...]} (the form a request asks
// for), and nothing else. Keys the schema does not declare are problems
// or are dropped, as the template's output says or opts overrides. A
// reply without the value, or whose value does not match, is an
// *output.Error that keeps the reply and names each problem by its JSON
// Pointer and its line and column in the reply. The value comes back
// compact, its keys in the schema's order.
func (t *Template) ParseReplyWith(reply []byte, opts ReplyOptions) (*output.Result, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	o := t.Output
	if o == nil {
		return nil, fmt.Errorf("typed %s/%s declares no output: add output: with a schema to parse replies", t.NS, t.Key)
	}
	s, err := o.compiled()
	if err != nil {
		return nil, fmt.Errorf("typed %s/%s: %w", t.NS, t.Key, err)
	}
	sp := output.Spec{Name: o.Name, Schema: s, Extra: o.Extra, Tolerant: opts.Tolerant}
	if o.Array {
		sp.Container = output.Array
	}
	if opts.Extra != nil {
		sp.Extra = *opts.Extra
	}
	return sp.Parse(reply)
}

// Expansion reads the arguments of the model's open_sections call (the
// JSON object the provider returns with the tool call) and returns the
// section paths to expand, for Options.Expand in the next layout. Paths
// that are not summarized sections of t are an error, so a model cannot
// make the caller render what the template does not offer.
func (t *Template) Expansion(args []byte) ([]string, error) {
	if t == nil {
		return nil, errNilTemplate
	}
	var call struct {
		SectionKeys []string `json:"section_keys"`
		Reason      string   `json:"reason"`
	}
	if err := json.Unmarshal(args, &call); err != nil {
		return nil, fmt.Errorf("%s call: %w", OpenSectionsTool, err)
	}
	if len(call.SectionKeys) == 0 {
		return nil, fmt.Errorf("%s call names no section_keys", OpenSectionsTool)
	}
	for _, p := range call.SectionKeys {
		if s := t.Section(p); s == nil || !s.Summarized {
			return nil, fmt.Errorf("%s call: %q is not a summarized section of %s/%s; they are %s", OpenSectionsTool, p, t.NS, t.Key, t.summarized())
		}
	}
	return call.SectionKeys, nil
}

// ReadSection answers the model's read_section call. args is the call's
// JSON arguments ({"section_key": "rules"}); vals and opts are those the
// prompt was laid out with. It returns the section in full, as it would
// be written expanded (its title, body and subsections, headings without
// numbers), for the tool's result; the prompt itself stays as it is. A
// key that is not a summarized section without tools is an error.
func (t *Template) ReadSection(args []byte, vals Values, opts Options) (string, error) {
	if t == nil {
		return "", errNilTemplate
	}
	var call struct {
		SectionKey string `json:"section_key"`
	}
	if err := json.Unmarshal(args, &call); err != nil {
		return "", fmt.Errorf("%s call: %w", ReadSectionTool, err)
	}
	s := t.Section(call.SectionKey)
	if s == nil || !s.Summarized || s.hasTools() {
		return "", fmt.Errorf("%s call: %q is not a summarized section without tools of %s/%s; those are %s", ReadSectionTool, call.SectionKey, t.NS, t.Key, t.readable())
	}
	opts.Expand = append(slices.Clone(opts.Expand), call.SectionKey)
	l, err := t.Layout(vals, opts)
	if err != nil {
		return "", err
	}
	sec := findSection(l.Sections, "", call.SectionKey)
	if sec == nil {
		return "", fmt.Errorf("%s call: section %q is not enabled with these values", ReadSectionTool, call.SectionKey)
	}
	return render.Render([]prompt.Section{*sec}, render.Style{Heading: render.Heading{Level: 2, Deeper: true}}).Text, nil
}

// readable lists the summarized sections without tools, for messages.
func (t *Template) readable() string {
	var paths []string
	t.Walk(func(path string, s *SectionSpec) {
		if s.Summarized && !s.hasTools() {
			paths = append(paths, path)
		}
	})
	if len(paths) == 0 {
		return "none"
	}
	return strings.Join(paths, ", ")
}

func findSection(secs []prompt.Section, parent, path string) *prompt.Section {
	for i := range secs {
		p := prompt.JoinKey(parent, secs[i].Key)
		if p == path {
			return &secs[i]
		}
		if s := findSection(secs[i].Children, p, path); s != nil {
			return s
		}
	}
	return nil
}

// ExpansionRequired is the answer to the model's open_sections call
// (design 003's VisibilityExpansionRequired): the sections it asked to
// see in full, and why. OpenSections (and Scope.Dispatch of package
// preset/typed/tools) return it as an error, for errors.As; the caller applies it (Apply) and lays the
// prompt out again, which is where the sections' tools come from.
type ExpansionRequired struct {
	// Requested maps each section path to its new visibility, "full".
	Requested map[string]string
	// Paths are the paths asked for, in the order the call gave them.
	Paths []string
	// Reason is why the model asked, as it said it.
	Reason string
}

// Error says which sections are to be opened, and why.
func (e *ExpansionRequired) Error() string {
	if e == nil {
		return "typed: an expansion with nothing requested"
	}
	return fmt.Sprintf("the model asked to open %s in full (%s): lay the prompt out again with them expanded", strings.Join(e.Paths, ", "), e.Reason)
}

// Apply returns opts with the requested sections expanded.
func (e *ExpansionRequired) Apply(opts Options) Options {
	if e == nil {
		return opts
	}
	out := opts
	out.Expand = slices.Clone(opts.Expand)
	for _, p := range e.Paths {
		if !slices.Contains(out.Expand, p) {
			out.Expand = append(out.Expand, p)
		}
	}
	return out
}

// OpenSections handles the model's open_sections call: args is its
// JSON arguments, vals and opts those the prompt was laid out with. A
// valid call returns an *ExpansionRequired (an error, for errors.As)
// with the paths and the model's reason. A path is refused, with why,
// when it is not a summarized section, when it or a section above it is
// not enabled with vals, when a summarized section above it stays
// summarized (neither expanded already nor asked for in the same call),
// or when it is already expanded; the reason is required.
func (t *Template) OpenSections(args []byte, vals Values, opts Options) error {
	if t == nil {
		return errNilTemplate
	}
	var call struct {
		SectionKeys []string `json:"section_keys"`
		Reason      string   `json:"reason"`
	}
	if err := json.Unmarshal(args, &call); err != nil {
		return fmt.Errorf("%s call: %w", OpenSectionsTool, err)
	}
	if len(call.SectionKeys) == 0 {
		return fmt.Errorf("%s call names no section_keys", OpenSectionsTool)
	}
	if strings.TrimSpace(call.Reason) == "" {
		return fmt.Errorf("%s call gives no reason: the model must say why it needs the sections", OpenSectionsTool)
	}
	full, err := t.resolve(vals)
	if err != nil {
		return err
	}
	open := map[string]bool{}
	for _, p := range opts.Expand {
		open[p] = true
	}
	for _, p := range call.SectionKeys {
		open[p] = true
	}
	var refused []string
	for _, p := range call.SectionKeys {
		if why := t.cannotOpen(p, full, open, opts.Expand); why != "" {
			refused = append(refused, fmt.Sprintf("%q %s", p, why))
		}
	}
	if len(refused) > 0 {
		return fmt.Errorf("%s call refused: %s", OpenSectionsTool, strings.Join(refused, "; "))
	}
	e := &ExpansionRequired{Requested: map[string]string{}, Paths: slices.Clone(call.SectionKeys), Reason: call.Reason}
	for _, p := range call.SectionKeys {
		e.Requested[p] = "full"
	}
	return e
}

// cannotOpen says why the section at path cannot be opened, or "".
func (t *Template) cannotOpen(path string, vals Values, open map[string]bool, expanded []string) string {
	s := t.Section(path)
	switch {
	case s == nil:
		return fmt.Sprintf("is not a section of %s/%s; the summarized sections are %s", t.NS, t.Key, t.summarized())
	case !s.Summarized:
		return "is not summarized: it is always shown in full"
	case slices.Contains(expanded, path):
		return "is already open"
	}
	keys := strings.Split(path, "/")
	for i := range keys {
		anc := strings.Join(keys[:i+1], "/")
		a := t.Section(anc)
		if a.Enabled != "" && vals[a.Enabled].Bool == a.Negate {
			if anc == path {
				return fmt.Sprintf("is not enabled (enabled: %s)", enabledText(a))
			}
			return fmt.Sprintf("is inside %q, which is not enabled (enabled: %s)", anc, enabledText(a))
		}
		if anc != path && a.Summarized && !open[anc] {
			return fmt.Sprintf("is inside %q, which is still summarized: open it too", anc)
		}
	}
	return ""
}

func enabledText(s *SectionSpec) string {
	if s.Negate {
		return "!" + s.Enabled
	}
	return s.Enabled
}

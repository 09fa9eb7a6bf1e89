package agent

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/audit"
	"github.com/tessera-dev/tessera/preset"
	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/render"
)

// Input is what a role's prompt is built from. Each role reads its own
// fields; the others must be left empty:
//
//	planner    Goal (required), Workspace, UserContext, Listing
//	executor   TaskState and Subtask (required), Memory, Detail, Tools
//	replanner  Goal, TaskState and Plan (required), Discoveries, Errors, Detail
//	extractor  Subtask (required; its id), ToolCalls, Output
//	verifier   Subtask (required), Result, ToolCalls
//
// Text is written as given, once: braces in it are never read as
// placeholders.
type Input struct {
	// Role chooses the prompt.
	Role Role `json:"role"`
	// Goal is the task's goal.
	Goal string `json:"goal,omitempty"`
	// Workspace is the workspace's path, as the prompt shows it.
	Workspace string `json:"workspace,omitempty"`
	// UserContext is context the user gave with the goal.
	UserContext string `json:"user_context,omitempty"`
	// Listing is the workspace's contents (see ListWorkspace).
	Listing string `json:"listing,omitempty"`
	// TaskState is the task state as YAML (see ParseTaskState and
	// FormatTaskState); the replanner shows it as the current state.
	TaskState string `json:"task_state,omitempty"`
	// Subtask is the subtask being executed, extracted from or verified.
	Subtask *reply.Subtask `json:"subtask,omitempty"`
	// Memory is the retrieved memory entries.
	Memory []reply.MemoryEntry `json:"memory,omitempty"`
	// Detail shows memory entries' detail, and that of discoveries and
	// errors, below their summary.
	Detail bool `json:"detail,omitempty"`
	// Tools are the tools for this subtask. When Subtask.Tools names
	// some, only those are shown.
	Tools []Tool `json:"tools,omitempty"`
	// Plan is the original plan, for the replanner.
	Plan *reply.Plan `json:"plan,omitempty"`
	// Discoveries and Errors are what the replanner is told was learned
	// and went wrong.
	Discoveries []reply.MemoryEntry `json:"discoveries,omitempty"`
	Errors      []reply.MemoryEntry `json:"errors,omitempty"`
	// ToolCalls are the calls the executor made, with their results.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Output is the executor's final output, for the extractor.
	Output string `json:"output,omitempty"`
	// Result is the subtask's result, for the verifier.
	Result string `json:"result,omitempty"`
}

// InputError is an Input field that a role needs and lacks, or has and
// does not read.
type InputError struct {
	// Field names the Input field, as in "TaskState".
	Field string
	// Role is the role built.
	Role Role
	// Missing is true when the field is needed; false when it is not
	// read.
	Missing bool
}

func (e *InputError) Error() string {
	if e == nil {
		return "agent: an input error with no detail"
	}
	if e.Missing {
		return fmt.Sprintf("agent: the %s needs %s", e.Role, e.Field)
	}
	return fmt.Sprintf("agent: the %s does not read %s: leave it empty", e.Role, e.Field)
}

// check returns an *InputError for the first field in's role needs and
// lacks, or has and does not read.
func (in *Input) check() error {
	type field struct {
		name string
		set  bool
	}
	fields := []field{
		{"Goal", in.Goal != ""}, {"Workspace", in.Workspace != ""}, {"UserContext", in.UserContext != ""},
		{"Listing", in.Listing != ""}, {"TaskState", in.TaskState != ""}, {"Subtask", in.Subtask != nil},
		{"Memory", len(in.Memory) > 0}, {"Detail", in.Detail}, {"Tools", len(in.Tools) > 0}, {"Plan", in.Plan != nil},
		{"Discoveries", len(in.Discoveries) > 0}, {"Errors", len(in.Errors) > 0},
		{"ToolCalls", len(in.ToolCalls) > 0}, {"Output", in.Output != ""}, {"Result", in.Result != ""},
	}
	reads, needs := roleFields(in.Role)
	for _, f := range fields {
		switch {
		case slices.Contains(needs, f.name) && !f.set:
			return &InputError{Field: f.name, Role: in.Role, Missing: true}
		case f.set && !slices.Contains(reads, f.name):
			return &InputError{Field: f.name, Role: in.Role}
		}
	}
	return nil
}

// roleFields returns the Input fields role r reads, and those of them it
// needs.
func roleFields(r Role) (reads, needs []string) {
	switch r {
	case Planner:
		return []string{"Goal", "Workspace", "UserContext", "Listing"}, []string{"Goal"}
	case Executor:
		return []string{"TaskState", "Subtask", "Memory", "Detail", "Tools"}, []string{"TaskState", "Subtask"}
	case Replanner:
		return []string{"Goal", "TaskState", "Plan", "Discoveries", "Errors", "Detail"}, []string{"Goal", "TaskState", "Plan"}
	case Extractor:
		return []string{"Subtask", "ToolCalls", "Output"}, []string{"Subtask"}
	case Verifier:
		return []string{"Subtask", "Result", "ToolCalls"}, []string{"Subtask"}
	}
	return nil, nil
}

// none is written for a value that is empty in a section that shows
// something else.
const none = "(none)"

// Style is the agent preset's style: the sections in the design's order
// (role, instructions, task state, subtask, memory, tools, output format,
// constraints), joined by a "---" rule with a blank line on each side,
// empty sections left out, no headings (each template writes its own, as
// in "CURRENT TASK STATE:"), the parts of a section one after another on
// their own lines, and notes for entries the budget drops.
func Style() render.Style {
	st := render.Style{
		Slots:     make([]render.Slot, 0, 8),
		Heading:   render.Heading{Level: -1},
		Separator: "\n\n---\n\n",
		HideEmpty: true,
		Children:  render.Bullets,
		Notes: map[string]render.Note{
			"entries":     {Text: "({n} less relevant {n|entry|entries} left out)"},
			"tool-calls":  {Text: "({n} earlier tool {n|call|calls} left out)"},
			"discoveries": {Text: "({n} earlier {n|discovery|discoveries} left out)"},
			"errors":      {Text: "({n} earlier {n|error|errors} left out)"},
			"":            {Text: "({n} more left out)"},
		},
	}
	for _, s := range sectionOrder() {
		st.Slots = append(st.Slots, render.Slot{Key: s.key, Stable: s.stable})
	}
	return st
}

// messageCount is the number of provider messages an agent prompt is sent
// as: the role, output format and constraints on the system side, the
// rest on the user side.
const messageCount = 2

// value is a placeholder's value, laid out.
type value struct {
	text  string
	items []prompt.Item
	tools []prompt.Section
}

func (v *value) empty() bool { return v.text == "" && len(v.items) == 0 && len(v.tools) == 0 }

// Build lays out in's prompt from templates t: one section per key of the
// role's template, in the design's order, with the role's constraints
// from the library after the template's own. A section whose placeholders
// are all empty (no memory entries, no tools) is left out; an empty value
// in a section that shows something else is written "(none)". Untrusted
// values (the workspace listing, memory entries, the original plan,
// discoveries, errors, tool calls, the model's output and the result)
// are marked so the renderer fences them. No control character but '\n'
// and '\t' reaches the prompt, from any value or template: '\r', vertical
// tab, form feed and NEL (U+0085) become '\n'; every other C0 or C1
// control and DEL (ESC and BEL among them) becomes U+FFFD. The layout's
// Record writes the role's template, the library and in (as given) into
// an audit record, so Rebuild lays out the same prompt without any file.
func Build(t *Templates, in *Input) (*preset.Layout, error) {
	if t == nil {
		t = DefaultTemplates()
	}
	if in == nil {
		return nil, errors.New("agent: no input (nil *Input): give the role and the values its prompt shows")
	}
	if _, err := ParseRole(string(in.Role)); err != nil {
		return nil, fmt.Errorf("agent: %w", err)
	}
	if err := in.check(); err != nil {
		return nil, err
	}
	tmpl := t.Template(in.Role)
	vals, err := values(in)
	if err != nil {
		return nil, err
	}
	secs := make([]prompt.Section, 0, len(tmpl.keys))
	for i := range tmpl.keys {
		s, ok := buildSection(tmpl, &tmpl.keys[i], vals)
		if !ok {
			continue
		}
		if s.Key == keyConstraints {
			addLibrary(&s, t.Library().For(in.Role))
		}
		secs = append(secs, s)
	}
	cleanSections(secs)
	l := &preset.Layout{
		Sections: secs,
		Style:    Style(),
		Messages: messageCount,
		Label:    "agent " + string(in.Role),
		Record: func(rec *audit.Record) error {
			// JSON values inside the inputs (tool parameters and
			// arguments) are kept byte for byte: no HTML escaping.
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			err := enc.Encode(record{
				Version:  recordVersion,
				Template: file{Path: tmpl.path, Text: tmpl.text},
				Library:  file{Path: t.Library().path, Text: t.Library().text},
				Input:    in,
			})
			if err != nil {
				return fmt.Errorf("agent: recording the inputs: %w", err)
			}
			rec.Inputs = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
			return nil
		},
	}
	switch in.Role {
	case Planner, Replanner:
		l.Output = &preset.Output{Name: "plan", Schema: json.RawMessage(planSchema)}
	case Verifier:
		l.Output = &preset.Output{Name: "verdict", Schema: json.RawMessage(verdictSchema)}
	}
	return l, nil
}

// Text builds in's prompt from templates t (nil: the defaults) and
// renders it, with no budget: the prompt's text as a model would get it
// in one message.
func Text(t *Templates, in *Input) (string, error) {
	l, err := Build(t, in)
	if err != nil {
		return "", err
	}
	return render.Render(l.Sections, l.Style).Text, nil
}

// addLibrary appends the library's constraints for the role to the
// constraints section.
func addLibrary(s *prompt.Section, lib string) {
	if lib == "" {
		return
	}
	if len(s.Children) == 0 {
		if s.Body != "" {
			s.Body += "\n"
		}
		s.Body += lib
		return
	}
	s.Children = append(s.Children, prompt.Section{Key: "library", Body: lib, Priority: s.Priority, Trim: s.Trim, Role: s.Role})
}

// buildSection lays out one key of the template; false when all its
// placeholders are empty, so the section is left out.
func buildSection(tmpl *Template, tk *templateKey, vals map[string]*value) (prompt.Section, bool) {
	spec := sectionOf(tk.key)
	trim := prompt.TrimNever
	if spec.droppable {
		trim = prompt.TrimDrop
	}
	sec := prompt.Section{Key: tk.key, Priority: spec.priority, Trim: trim, Role: spec.role, Source: tmpl.path}
	used, empty, blocks := 0, 0, false
	for _, s := range tk.segs {
		if s.name == "" {
			continue
		}
		used++
		v := vals[s.name]
		if v.empty() {
			empty++
		} else if s.ph.kind != inline {
			blocks = true
		}
	}
	if used > 0 && used == empty {
		return sec, false
	}
	if !blocks {
		size := 0
		for _, s := range tk.segs {
			size += len(s.text)
			if s.name != "" {
				size += len(vals[s.name].text) + len(none)
			}
		}
		var b strings.Builder
		b.Grow(size)
		for _, s := range tk.segs {
			switch v := vals[s.name]; {
			case s.name == "":
				b.WriteString(s.text)
			case v.text == "":
				b.WriteString(none)
			default:
				b.WriteString(v.text)
			}
		}
		sec.Body = strings.TrimRight(b.String(), "\n")
		return sec, true
	}
	// A value fenced as data stands alone on its line: the text before
	// it becomes one part and the text after it another, and the
	// renderer writes the parts on lines of their own. (Two fenced values
	// separated by exactly one blank line are written on consecutive
	// lines: the renderer has no empty part to stand for the blank.)
	var (
		b     strings.Builder
		after bool // the text being gathered follows a block
		n     int
	)
	flush := func(last bool) {
		text := b.String()
		b.Reset()
		if after {
			text = strings.TrimLeft(text, " \t")
			text = strings.TrimPrefix(text, "\n")
		}
		if last {
			text = strings.TrimRight(text, "\n")
		} else {
			text = strings.TrimRight(text, " \t")
			text = strings.TrimSuffix(text, "\n")
		}
		after = false
		if text == "" {
			return
		}
		n++
		sec.Children = append(sec.Children, prompt.Section{Key: "text-" + strconv.Itoa(n), Body: text, Priority: spec.priority, Trim: trim, Role: spec.role})
	}
	for _, s := range tk.segs {
		if s.name == "" {
			b.WriteString(s.text)
			continue
		}
		p := s.ph
		v := vals[s.name]
		switch {
		case v.empty():
			b.WriteString(none)
			continue
		case p.kind == inline:
			b.WriteString(v.text)
			continue
		}
		flush(false)
		after = true
		prio := cmp.Or(p.prio, spec.priority)
		switch p.kind {
		case block:
			sec.Children = append(sec.Children, prompt.Section{Key: p.child, Body: v.text, Trust: prompt.Untrusted, Priority: prio, Trim: p.trim, Role: spec.role})
		case items:
			sec.Children = append(sec.Children, prompt.Section{Key: p.child, Items: v.items, Trust: prompt.Untrusted, Priority: prio, Trim: p.trim, Role: spec.role})
		case toolList:
			for _, t := range v.tools {
				t.Priority, t.Role = prio, spec.role
				sec.Children = append(sec.Children, t)
			}
		}
	}
	flush(true)
	return sec, true
}

// values lays out the value of every placeholder of in's role.
func values(in *Input) (map[string]*value, error) {
	vals := make(map[string]*value, 8)
	set := func(name, text string) { vals[name] = &value{text: text} }
	sub := in.Subtask
	if sub == nil {
		sub = &reply.Subtask{}
	}
	switch in.Role {
	case Planner:
		set("goal", inlineText(in.Goal))
		set("workspace_path", inlineText(in.Workspace))
		set("user_context", inlineText(in.UserContext))
		set("workspace_listing", blockText(in.Listing))
	case Executor:
		set("task_state_yaml", blockText(in.TaskState))
		set("subtask_id", inlineText(sub.ID))
		set("subtask_description", inlineText(sub.Description))
		set("acceptance_criteria", inlineText(sub.AcceptanceCriteria))
		vals["memory_entries_formatted"] = &value{items: memoryItems(in.Memory, "memory", sub.ID, in.Detail)}
		tools, err := toolSections(in.Tools, sub)
		if err != nil {
			return nil, err
		}
		vals["tools_formatted"] = &value{tools: tools}
	case Replanner:
		set("goal", inlineText(in.Goal))
		set("current_state_yaml", blockText(in.TaskState))
		vals["discoveries_formatted"] = &value{items: memoryItems(in.Discoveries, "discovery", "", in.Detail)}
		vals["errors_formatted"] = &value{items: memoryItems(in.Errors, "error", "", in.Detail)}
		set("original_plan_formatted", formatPlan(in.Plan))
	case Extractor:
		set("subtask_id", inlineText(sub.ID))
		vals["tool_calls_formatted"] = &value{items: callItems(in.ToolCalls)}
		set("model_output", blockText(in.Output))
	case Verifier:
		set("subtask_id", inlineText(sub.ID))
		set("subtask_description", inlineText(sub.Description))
		set("acceptance_criteria", inlineText(sub.AcceptanceCriteria))
		set("result", blockText(in.Result))
		vals["tool_calls_formatted"] = &value{items: callItems(in.ToolCalls)}
	}
	return vals, nil
}

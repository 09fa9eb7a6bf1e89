package agent

import (
	"fmt"

	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/internal/wordlist"
	"github.com/tessera-dev/tessera/prompt"
)

// Role is one step of the agent's loop, with a prompt of its own.
type Role string

// The five roles.
const (
	// Planner decomposes the goal into subtasks.
	Planner Role = "planner"
	// Executor carries out one subtask with tools.
	Executor Role = "executor"
	// Replanner revises the pending subtasks, keeping completed ones.
	Replanner Role = "replanner"
	// Extractor turns a finished subtask into memory entries.
	Extractor Role = "extractor"
	// Verifier checks a finished subtask against its acceptance criteria.
	Verifier Role = "verifier"
)

// Roles returns the five roles in the order of the agent's loop.
func Roles() []Role { return []Role{Planner, Executor, Replanner, Extractor, Verifier} }

// verbs returns the command-line verbs of the roles, in Roles order.
func verbs() []string { return []string{"plan", "execute", "replan", "extract", "verify"} }

// Verb returns the command verb of r: plan, execute, replan, extract or
// verify.
func (r Role) Verb() string {
	for i, x := range Roles() {
		if x == r {
			return verbs()[i]
		}
	}
	return string(r)
}

// ParseRole returns the role named s, by its name (planner, executor,
// replanner, extractor, verifier) or its verb (plan, execute, replan,
// extract, verify).
func ParseRole(s string) (Role, error) {
	for i, r := range Roles() {
		if s == string(r) || s == verbs()[i] {
			return r, nil
		}
	}
	hint := ""
	names := verbs()
	for _, r := range Roles() {
		names = append(names, string(r))
	}
	if h := suggest.Nearest(s, names); h != "" {
		hint = fmt.Sprintf("did you mean %s? ", h)
	}
	return "", fmt.Errorf("%q is not a role: %suse planner, executor, replanner, extractor or verifier", s, hint)
}

// The template keys, in the order their sections are written.
const (
	keyRole         = "role"
	keyInstructions = "instructions"
	keyTaskState    = "task_state"
	keySubtask      = "subtask"
	keyMemory       = "memory"
	keyTools        = "tools"
	keyOutputFormat = "output_format"
	keyConstraints  = "constraints"
)

// section is what a template key becomes: its place in the budget's
// order (lower priority numbers are kept longer), its side in a provider
// request, and whether the budget may drop it whole.
type section struct {
	key       string
	priority  int
	role      prompt.Role
	droppable bool
	stable    bool
}

// sectionOrder returns the sections of every prompt in their order, with
// the design's priorities: role, task state, subtask, constraints, output
// format, tools, memory. Memory goes first when the prompt is over
// budget, then tools.
func sectionOrder() [8]section {
	return [8]section{
		{key: keyRole, priority: 10, role: prompt.RoleSystem, stable: true},
		{key: keyInstructions, priority: 20, role: prompt.RoleUser},
		{key: keyTaskState, priority: 20, role: prompt.RoleUser},
		{key: keySubtask, priority: 30, role: prompt.RoleUser},
		{key: keyMemory, priority: 70, role: prompt.RoleUser, droppable: true},
		{key: keyTools, priority: 60, role: prompt.RoleUser, droppable: true},
		{key: keyOutputFormat, priority: 50, role: prompt.RoleSystem, stable: true},
		{key: keyConstraints, priority: 40, role: prompt.RoleSystem, stable: true},
	}
}

func sectionOf(key string) section {
	for _, s := range sectionOrder() {
		if s.key == key {
			return s
		}
	}
	return section{key: key}
}

// keySpec is a key a role's template may have.
type keySpec struct {
	key      string
	required bool
}

// keysOf returns the keys of r's template: the ones the design shows are
// required; output_format (for the roles whose design template has none)
// and the executor's tools are optional.
func keysOf(r Role) []keySpec {
	if r == Executor {
		return []keySpec{
			{keyRole, true}, {keyTaskState, true}, {keySubtask, true}, {keyMemory, true},
			{keyTools, false}, {keyOutputFormat, true}, {keyConstraints, true},
		}
	}
	return []keySpec{{keyRole, true}, {keyInstructions, true}, {keyOutputFormat, false}, {keyConstraints, true}}
}

// valueKind is how a placeholder's value is laid out.
type valueKind uint8

const (
	// inline text is trusted and written where the placeholder stands.
	inline valueKind = iota
	// block text is untrusted: it is fenced as data, so the placeholder
	// stands alone on its line.
	block
	// items are untrusted entries, one per line, fenced together; the
	// budget drops them one by one.
	items
	// toolList is the tools, one part each, that the budget drops one by
	// one, taking the tool's schema out of the request with it.
	toolList
)

// placeholder is a value a role's templates may name.
type placeholder struct {
	name  string
	kind  valueKind
	child string          // the key of its part of the section
	trim  prompt.TrimRule // for block and items
	prio  int             // for block and items; 0 means the section's
	only  string          // the one template key it may stand in, if any
}

// placeholdersOf returns the placeholders r provides.
func placeholdersOf(r Role) []placeholder {
	switch r {
	case Planner:
		return []placeholder{
			{name: "goal"},
			{name: "workspace_path"},
			{name: "user_context"},
			{name: "workspace_listing", kind: block, child: "listing", trim: prompt.TrimTruncate, prio: 80},
		}
	case Executor:
		return []placeholder{
			{name: "task_state_yaml"},
			{name: "subtask_id"},
			{name: "subtask_description"},
			{name: "acceptance_criteria"},
			{name: "memory_entries_formatted", kind: items, child: "entries", trim: prompt.TrimLowestRelevance, prio: 75, only: keyMemory},
			{name: "tools_formatted", kind: toolList, trim: prompt.TrimDrop, prio: 65, only: keyTools},
		}
	case Replanner:
		return []placeholder{
			{name: "goal"},
			{name: "current_state_yaml"},
			{name: "discoveries_formatted", kind: items, child: "discoveries", trim: prompt.TrimOldest, prio: 75},
			{name: "errors_formatted", kind: items, child: "errors", trim: prompt.TrimOldest, prio: 70},
			{name: "original_plan_formatted", kind: block, child: "plan", trim: prompt.TrimNever},
		}
	case Extractor:
		return []placeholder{
			{name: "subtask_id"},
			{name: "tool_calls_formatted", kind: items, child: "tool-calls", trim: prompt.TrimOldest, prio: 75},
			{name: "model_output", kind: block, child: "output", trim: prompt.TrimTruncate, prio: 70},
		}
	case Verifier:
		return []placeholder{
			{name: "subtask_id"},
			{name: "subtask_description"},
			{name: "acceptance_criteria"},
			{name: "result", kind: block, child: "result", trim: prompt.TrimTruncate, prio: 70},
			{name: "tool_calls_formatted", kind: items, child: "tool-calls", trim: prompt.TrimOldest, prio: 75},
		}
	}
	return nil
}

func placeholderOf(r Role, name string) *placeholder {
	for _, p := range placeholdersOf(r) {
		if p.name == name {
			return &p
		}
	}
	return nil
}

// placeholderNames lists r's placeholders as "{a}, {b} or {c}".
func placeholderNames(r Role) string {
	var names []string
	for _, p := range placeholdersOf(r) {
		names = append(names, "{"+p.name+"}")
	}
	return wordlist.Or(names)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

package reply

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/wordlist"
)

// The bounds of a plan, from the design's planner constraints.
const (
	MinSubtasks = 3
	MaxSubtasks = 15
)

// kebab is the shape of a subtask id: lower-case words of letters and
// digits joined by single hyphens, as in "install-deps".
var kebab = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// maxIDLen is the longest subtask id accepted.
const maxIDLen = 64

// requiredSubtaskFields are the fields every subtask of a plan has, as
// the design's planner output shows them.
func requiredSubtaskFields() []string {
	return []string{"id", "description", "depends_on", "model_tier", "verification_tier", "is_critical_path", "acceptance_criteria"}
}

// reply is a model reply being checked: its name for messages, its text,
// and the problems found so far.
type reply struct {
	name string
	text []byte
	base int // offset of the extracted JSON in text
	errs diag.List
	// dropped counts the problems past maxProblems, not listed.
	dropped int

	// A cursor over text for pos: the offset it has reached, and the
	// line (1-based, 0 before the first use) and offset of the line it
	// is on.
	curOff, curLine, curStart int
}

// pos returns the line and column (in bytes) in the reply of the JSON
// offset off. The cursor moves from the last offset asked for, so that
// offsets asked for in order cost one pass over the reply in all, and a
// step back costs its length.
func (r *reply) pos(off int) (line, col int) {
	at := min(max(r.base+off, 0), len(r.text))
	if r.curLine == 0 {
		r.curOff, r.curLine, r.curStart = 0, 1, 0
	}
	if at < r.curOff {
		if n := bytes.Count(r.text[at:r.curOff], []byte{'\n'}); n > 0 {
			r.curLine -= n
			r.curStart = bytes.LastIndexByte(r.text[:at], '\n') + 1
		}
	}
	for {
		j := bytes.IndexByte(r.text[min(r.curOff, at):at], '\n')
		if j < 0 {
			break
		}
		r.curOff += j + 1
		r.curLine++
		r.curStart = r.curOff
	}
	r.curOff = at
	return r.curLine, at - r.curStart + 1
}

// place returns where the JSON offset off is in the reply.
func (r *reply) place(off int) place {
	line, col := r.pos(off)
	return place{line, col}
}

// partOf returns the part of a subtask that field is.
func partOf(field string) part {
	for _, f := range subtaskFields {
		if f.key == field {
			return f.part
		}
	}
	return partSubtask
}

// maxProblems is how many problems of a reply are listed; the rest are
// counted in one last line.
const maxProblems = 100

// maxPlanItems is how many subtasks a plan may hold for each to be
// checked: beyond it, the plan's length is its one problem.
const maxPlanItems = 100

// full reports whether the reply has as many problems as are listed,
// counting the one it would add.
func (r *reply) full() bool {
	if len(r.errs) < maxProblems {
		return false
	}
	r.dropped++
	return true
}

// errorAt records a problem at the JSON offset off.
func (r *reply) errorAt(off int, format string, args ...any) {
	if r.full() {
		return
	}
	line, col := r.pos(off)
	r.errs = append(r.errs, diag.ErrorfAt(r.name, line, col, format, args...))
}

// errorf records a problem with the reply as a whole.
func (r *reply) errorf(format string, args ...any) {
	if r.full() {
		return
	}
	r.errs = append(r.errs, diag.Errorf(r.name, 0, format, args...))
}

// result sorts the problems, adds a line counting those not listed, and
// returns them as an error, or nil.
func (r *reply) result() error {
	r.errs.Sort()
	if r.dropped > 0 {
		r.errs = append(r.errs, diag.Errorf(r.name, 0, "%d more problems not listed: fix those above and check again", r.dropped))
	}
	return r.errs.Err()
}

// extract finds the reply's JSON value opening with open and parses it;
// nil, with the problem recorded, when there is none or it is not valid.
func (r *reply) extract(open byte, what string) *jsonNode {
	// Every value of a JSON array or object but the first follows a ','
	// and every array or object opens with '[' or '{': more of those
	// than MaxReplyValues allows is refused before the reply is searched
	// for its JSON, whose reading costs more per value.
	if n, over := replyMarks(r.text); over {
		r.errorf("the reply holds %d commas and brackets, more than a reply of at most %d JSON values needs: ask the model for a shorter answer", n, MaxReplyValues)
		return nil
	}
	data, off, ok := ExtractJSON(r.text, open)
	if !ok {
		if len(bytes.TrimSpace(r.text)) == 0 {
			r.errorf("the reply is empty: %s", what)
		} else {
			r.errorf("the reply holds no JSON %s: %s", map[byte]string{'{': "object", '[': "array"}[open], what)
		}
		return nil
	}
	r.base = off
	n, err := parseJSON(data)
	if err != nil {
		je, _ := err.(*jsonError)
		at := 0
		msg := err.Error()
		if je != nil {
			at, msg = je.off, je.msg
		}
		r.errorAt(at, "%s", msg)
		return nil
	}
	return n
}

// replyMarks counts the commas and opening brackets of a reply, and
// reports whether they are more than a reply of MaxReplyValues values
// needs.
func replyMarks(text []byte) (int, bool) {
	n := bytes.Count(text, []byte{','}) + bytes.Count(text, []byte{'['}) + bytes.Count(text, []byte{'{'})
	return n, n > 2*MaxReplyValues
}

// repeated reports members written twice in object n, which encoding/json
// would silently merge. Keys match in any case (see jsonNode.member), so
// "status" and "Status" are the same key written twice.
func (r *reply) repeated(n *jsonNode, label string) {
	seen := map[string]string{}
	for _, f := range n.keys {
		key := strings.ToLower(f.name)
		switch first, ok := seen[key]; {
		case ok && first == f.name:
			r.errorAt(f.off, "%s: %q is written twice: keep one", label, f.name)
		case ok:
			r.errorAt(f.off, "%s: %q is %q written again (keys match in any case): keep one", label, f.name, first)
		default:
			seen[key] = f.name
		}
	}
}

// ParsePlan reads a planner's (or replanner's) reply: the JSON object in
// it (see ExtractJSON), as a plan, checked with ValidatePlan, and with
// every required field present and of the right type; keys match in any
// case ("ID" is "id"). name names the reply in messages. It returns the
// plan as far as it could be read, and every problem as a diag.List
// whose messages name the subtask ("subtask \"add-types\": ...", or
// "subtask 4" when it has no usable id) at the line and column (in bytes)
// in the reply of the value at fault, or of the subtask.
func ParsePlan(name string, text []byte) (*Plan, error) {
	r := &reply{name: name, text: text}
	const what = `the plan is one JSON object, {"subtasks": [...]}`
	n := r.extract('{', what)
	if n == nil {
		return nil, r.errs
	}
	p := &Plan{source: name, Subtasks: []Subtask{}}
	r.repeated(n, "the plan")
	key := n.member("subtasks")
	switch {
	case key == nil:
		r.errorAt(n.off, "the plan has no \"subtasks\": %s", what)
		return p, r.errs
	case key.val.kind != jsonArray:
		r.errorAt(key.val.off, "\"subtasks\" is %s: write an array of subtasks", key.val.kind)
		return p, r.errs
	}
	list := key.val
	p.line, p.col = r.pos(key.off)
	if n := len(list.elems); n > maxPlanItems {
		// Far too long to be a plan: its length is the problem, and its
		// subtasks are not checked one by one.
		r.errorAt(key.off, "the plan has %d subtasks: make it %d to %d", n, MinSubtasks, MaxSubtasks)
		return p, r.result()
	}
	missing := map[int]map[string]bool{}
	for i, e := range list.elems {
		p.Subtasks = append(p.Subtasks, r.subtask(e, i, missing))
	}
	for _, e := range validate(p, func(i int, field string) bool { return missing[i][field] }) {
		if !r.full() {
			r.errs = append(r.errs, e)
		}
	}
	return p, r.result()
}

// subtask decodes element i of a plan's subtasks, noting in missing the
// required fields it lacks or that have the wrong type.
func (r *reply) subtask(e *jsonNode, i int, missing map[int]map[string]bool) Subtask {
	s := Subtask{DependsOn: []string{}, at: &subtaskAt{}}
	s.at.parts[partSubtask] = r.place(e.off)
	label := fmt.Sprintf("subtask %d", i+1)
	if e.kind != jsonObject {
		r.errorAt(e.off, "%s is %s: write an object with %s", label, e.kind, wordlist.And(requiredSubtaskFields()))
		missing[i] = map[string]bool{"*": true}
		return s
	}
	if id := e.field("id"); id != nil && id.kind == jsonString && id.text != "" {
		label = fmt.Sprintf("subtask %q", id.text)
	}
	r.repeated(e, label)
	miss := map[string]bool{}
	missing[i] = miss
	bad := func(f *jsonNode, field, want string) {
		r.errorAt(f.off, "%s: %s is %s: write %s", label, field, f.kind, want)
		miss[field] = true
	}
	for _, field := range requiredSubtaskFields() {
		f := e.field(field)
		if f == nil {
			r.errorAt(e.off, "%s has no %s: add it", label, field)
			miss[field] = true
			continue
		}
		s.at.parts[partOf(field)] = r.place(f.off)
		switch field {
		case "id", "description", "acceptance_criteria":
			if f.kind != jsonString {
				bad(f, field, "a string")
				continue
			}
			switch field {
			case "id":
				s.ID = f.text
			case "description":
				s.Description = f.text
			default:
				s.AcceptanceCriteria = f.text
			}
		case "depends_on":
			if f.kind != jsonArray {
				bad(f, field, "an array of subtask ids ([] for none)")
				continue
			}
			for _, d := range f.elems {
				if d.kind != jsonString {
					bad(d, "an id in depends_on", "a string")
					continue
				}
				s.DependsOn = append(s.DependsOn, d.text)
				s.at.deps = append(s.at.deps, r.place(d.off))
			}
		case "model_tier", "verification_tier":
			n, err := strconv.Atoi(f.text)
			if f.kind != jsonNumber || err != nil {
				bad(f, field, "a whole number")
				continue
			}
			if field == "model_tier" {
				s.ModelTier = n
			} else {
				s.VerificationTier = n
			}
		case "is_critical_path":
			if f.kind != jsonBool {
				bad(f, field, "true or false")
				continue
			}
			s.IsCriticalPath = f.text == "true"
		}
	}
	if f := e.field("status"); f != nil {
		if f.kind == jsonString {
			s.Status = f.text
		} else {
			bad(f, "status", "a string")
		}
	}
	if f := e.field("tools"); f != nil {
		if f.kind != jsonArray {
			bad(f, "tools", "an array of tool names")
		}
		for _, t := range f.elems {
			if t.kind == jsonString {
				s.Tools = append(s.Tools, t.text)
			} else {
				bad(t, "a tool name", "a string")
			}
		}
	}
	return s
}

// ValidatePlan checks a plan as the design's planner constraints say: 3
// to 15 subtasks; ids unique, kebab-case ("install-deps"); every id in
// depends_on names another subtask of the plan, and no dependencies form
// a cycle; model_tier 1, 2 or 3; verification_tier 1 or 2; description
// and acceptance_criteria not empty. Every problem is returned, as a
// diag.List naming the subtask; nil when the plan is valid. A nil plan
// is an error.
func ValidatePlan(p *Plan) error {
	if p == nil {
		return errNilPlan("plan")
	}
	errs := validate(p, func(int, string) bool { return false })
	errs.Sort()
	return errs.Err()
}

// validate checks p; skip says which fields of subtask i were already
// reported missing or mistyped.
func validate(p *Plan, skip func(i int, field string) bool) diag.List {
	var errs diag.List
	at := func(s *Subtask, pt part, format string, args ...any) {
		line, col := s.pos(pt)
		errs = append(errs, diag.ErrorfAt(p.source, line, col, format, args...))
	}
	if n := len(p.Subtasks); n < MinSubtasks || n > MaxSubtasks {
		errs = append(errs, diag.ErrorfAt(p.source, p.line, p.col, "the plan has %d subtask%s: make it %d to %d", n, plural(n), MinSubtasks, MaxSubtasks))
	}
	index := map[string]int{}
	for i := range p.Subtasks {
		s := &p.Subtasks[i]
		label := labelOf(s, i)
		if !skip(i, "*") && !skip(i, "id") {
			switch first, dup := index[s.ID]; {
			case s.ID == "":
				at(s, partID, "%s has an empty id: give it a short kebab-case id, such as \"run-tests\"", label)
			case len(s.ID) > maxIDLen || !kebab.MatchString(s.ID):
				at(s, partID, "%s: the id is not kebab-case: use lower-case letters and digits joined by '-', at most %d characters, such as \"run-tests\"", label, maxIDLen)
			case dup:
				at(s, partID, "%s: the id is used by subtask %d too: ids are unique", label, first+1)
			}
		}
		if _, ok := index[s.ID]; !ok && s.ID != "" {
			index[s.ID] = i
		}
		if skip(i, "*") {
			continue
		}
		if !skip(i, "description") && strings.TrimSpace(s.Description) == "" {
			at(s, partDescription, "%s: the description is empty: say what to do", label)
		}
		if !skip(i, "acceptance_criteria") && strings.TrimSpace(s.AcceptanceCriteria) == "" {
			at(s, partAcceptanceCriteria, "%s: the acceptance_criteria are empty: say how to check it is done", label)
		}
		if !skip(i, "model_tier") && (s.ModelTier < 1 || s.ModelTier > 3) {
			at(s, partModelTier, "%s: model_tier is %d: use 1 (simple file operations), 2 (code generation) or 3 (complex reasoning)", label, s.ModelTier)
		}
		if !skip(i, "verification_tier") && (s.VerificationTier < 1 || s.VerificationTier > 2) {
			at(s, partVerificationTier, "%s: verification_tier is %d: use 1 (file checks) or 2 (review by a model)", label, s.VerificationTier)
		}
	}
	for i := range p.Subtasks {
		s := &p.Subtasks[i]
		for j, d := range s.DependsOn {
			line, col := s.depPos(j)
			switch _, ok := index[d]; {
			case d == s.ID && s.ID != "":
				errs = append(errs, diag.ErrorfAt(p.source, line, col, "%s depends on itself: remove %q from depends_on", labelOf(s, i), d))
			case !ok:
				errs = append(errs, diag.ErrorfAt(p.source, line, col, "%s: depends_on names %q, which is not a subtask of the plan: use one of the plan's ids", labelOf(s, i), d))
			}
		}
	}
	for _, c := range cycles(p, index) {
		s := &p.Subtasks[c[0]]
		ids := make([]string, len(c)+1)
		for j, k := range c {
			ids[j] = p.Subtasks[k].ID
		}
		ids[len(c)] = s.ID
		at(s, partDependsOn, "%s: the dependencies form a cycle, %s: remove one of them", labelOf(s, c[0]), strings.Join(ids, " → "))
	}
	return errs
}

// errNilPlan is the error for a nil plan where one is checked.
func errNilPlan(what string) error {
	return fmt.Errorf("agent: no %s to check (nil *Plan): read it with ParsePlan", what)
}

func labelOf(s *Subtask, i int) string {
	if s.ID != "" {
		return fmt.Sprintf("subtask %q", s.ID)
	}
	return fmt.Sprintf("subtask %d", i+1)
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// cycles returns each cycle of two or more subtasks in the dependency
// graph once, as indexes in dependency order starting from the subtask
// that comes first in the plan. Self-dependencies are reported apart.
func cycles(p *Plan, index map[string]int) [][]int {
	const (
		white = iota
		grey
		black
	)
	color := make([]int, len(p.Subtasks))
	var (
		out   [][]int
		seen  = map[string]bool{}
		stack []int
	)
	var visit func(i int)
	visit = func(i int) {
		color[i] = grey
		stack = append(stack, i)
		for _, d := range p.Subtasks[i].DependsOn {
			j, ok := index[d]
			if !ok || j == i {
				continue
			}
			switch color[j] {
			case white:
				visit(j)
			case grey:
				k := slices.Index(stack, j)
				c := slices.Clone(stack[k:])
				// Start the cycle at its earliest subtask.
				m := slices.Index(c, slices.Min(c))
				c = append(c[m:], c[:m]...)
				key := fmt.Sprint(c)
				if !seen[key] {
					seen[key] = true
					out = append(out, c)
				}
			}
		}
		stack = stack[:len(stack)-1]
		color[i] = black
	}
	for i := range p.Subtasks {
		if color[i] == white {
			visit(i)
		}
	}
	return out
}

// ValidateReplan checks a revised plan against the original: it must be a
// valid plan (ValidatePlan), and every completed subtask of the original
// (status "completed", and the ids given in completed) must be in it
// unchanged: the same description, dependencies (in any order), tiers,
// critical-path mark and acceptance criteria, and no status but
// "completed". Every problem is returned, as a diag.List naming the
// subtask; nil when the revised plan keeps the completed work. A nil
// plan, original or revised, is an error.
func ValidateReplan(original, revised *Plan, completed ...string) error {
	var nils []error
	if original == nil {
		nils = append(nils, errNilPlan("original plan"))
	}
	if revised == nil {
		nils = append(nils, errNilPlan("revised plan"))
	}
	if len(nils) > 0 {
		return errors.Join(nils...)
	}
	errs := validate(revised, func(int, string) bool { return false })
	errs = append(errs, preserved(original, revised, completed)...)
	errs.Sort()
	return errs.Err()
}

// preserved reports the completed subtasks of original that revised
// drops or changes.
func preserved(original, revised *Plan, completed []string) diag.List {
	var errs diag.List
	var done []string
	for _, s := range original.Subtasks {
		if s.Status == StatusCompleted {
			done = append(done, s.ID)
		}
	}
	for _, id := range completed {
		if original.Subtask(id) == nil {
			errs = append(errs, diag.ErrorfAt(original.source, original.line, original.col, "subtask %q is given as completed, but the original plan has no such subtask: check the id", id))
			continue
		}
		if !slices.Contains(done, id) {
			done = append(done, id)
		}
	}
	for _, id := range done {
		o := original.Subtask(id)
		r := revised.Subtask(id)
		// The original subtask, where the revised plan's problem with it
		// is reported.
		var was []diag.Location
		if line, col := o.pos(partSubtask); original.source != "" && line > 0 {
			was = []diag.Location{{Label: "original at", Path: original.source, Line: line, Col: col}}
		}
		if r == nil {
			e := diag.ErrorfAt(revised.source, revised.line, revised.col, "subtask %q is completed, but the revised plan drops it: keep it, unchanged", id)
			e.Related = was
			errs = append(errs, e)
			continue
		}
		var changed []string
		if strings.TrimSpace(o.Description) != strings.TrimSpace(r.Description) {
			changed = append(changed, "description")
		}
		if !sameSet(o.DependsOn, r.DependsOn) {
			changed = append(changed, "depends_on")
		}
		if o.ModelTier != r.ModelTier {
			changed = append(changed, "model_tier")
		}
		if o.VerificationTier != r.VerificationTier {
			changed = append(changed, "verification_tier")
		}
		if o.IsCriticalPath != r.IsCriticalPath {
			changed = append(changed, "is_critical_path")
		}
		if strings.TrimSpace(o.AcceptanceCriteria) != strings.TrimSpace(r.AcceptanceCriteria) {
			changed = append(changed, "acceptance_criteria")
		}
		if r.Status != "" && r.Status != StatusCompleted {
			changed = append(changed, "status")
		}
		if len(changed) > 0 {
			line, col := r.pos(partSubtask)
			e := diag.ErrorfAt(revised.source, line, col, "subtask %q is completed, but the revised plan changes its %s: keep it as it was", id, wordlist.And(changed))
			e.Related = was
			errs = append(errs, e)
		}
	}
	return errs
}

func sameSet(a, b []string) bool {
	x, y := slices.Clone(a), slices.Clone(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(slices.Compact(x), slices.Compact(y))
}

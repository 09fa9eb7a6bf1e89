package agent

import (
	"regexp"
	"slices"
	"strings"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"go.yaml.in/yaml/v4"
)

// Library is the constraint library: named sets of constraints, and for
// each role the sets that follow its own constraints. It is immutable.
type Library struct {
	path  string
	text  string
	sets  map[string]string
	apply map[Role][]string
}

// Path returns the file the library was read from.
func (l *Library) Path() string { return l.path }

// For returns the constraints the library adds to r's prompt: its sets,
// in the order "apply" lists them, one after the other.
func (l *Library) For(r Role) string {
	var b strings.Builder
	for _, name := range l.apply[r] {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.sets[name])
	}
	return b.String()
}

// Sets returns the names of the sets applied to r, in order.
func (l *Library) Sets(r Role) []string { return slices.Clone(l.apply[r]) }

var setName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// ParseLibrary parses the constraint library from data, the text of the
// file path. Its top level maps set names (lower-case words) to text,
// taken as written, and the key "apply" to a mapping from every role to
// the list of sets it gets. An unknown role, a role left out, a set that
// is not defined or is empty: each is an error at its line.
func ParseLibrary(path string, data []byte) (*Library, error) {
	top, err := yamldoc.Parse(path, data)
	if err != nil {
		return nil, err
	}
	if top == nil || top.Kind != yaml.MappingNode {
		return nil, diag.List{diag.Errorf(path, 1, "the constraint library is a mapping: set names to their constraints, and \"apply\" to the sets of each role")}
	}
	l := &Library{path: path, text: string(data), sets: map[string]string{}, apply: map[Role][]string{}}
	var errs diag.List
	var apply *yaml.Node
	applyLine := 0
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch {
		case k.Value == "apply":
			apply, applyLine = v, k.Line
		case !setName.MatchString(k.Value):
			errs = append(errs, diag.Errorf(path, k.Line, "set name %q: use lower-case letters, digits, '_' and '-', starting with a letter", k.Value))
		case v.Kind != yaml.ScalarNode || v.Tag == "!!null" || strings.TrimSpace(v.Value) == "":
			errs = append(errs, diag.Errorf(path, k.Line, "set %q: write its constraints as text, one \"- \" line each", k.Value))
		default:
			l.sets[k.Value] = strings.TrimRight(v.Value, "\n")
		}
	}
	switch {
	case apply == nil:
		errs = append(errs, diag.Errorf(path, top.Line, "missing key \"apply\": list the sets of each role, as in \"planner: [common, safety]\""))
	case apply.Kind != yaml.MappingNode:
		errs = append(errs, diag.Errorf(path, applyLine, "\"apply\" maps each role to a list of sets, as in \"planner: [common, safety]\""))
	default:
		for i := 0; i+1 < len(apply.Content); i += 2 {
			k, v := apply.Content[i], apply.Content[i+1]
			r, err := ParseRole(k.Value)
			if err != nil || string(r) != k.Value {
				errs = append(errs, diag.Errorf(path, k.Line, "apply: %q is not a role: use planner, executor, replanner, extractor and verifier", k.Value))
				continue
			}
			if v.Kind != yaml.SequenceNode {
				errs = append(errs, diag.Errorf(path, k.Line, "apply: %s: write a list of sets, as in [common, safety] ([] for none)", k.Value))
				continue
			}
			names := []string{}
			for _, s := range v.Content {
				if s.Kind != yaml.ScalarNode {
					errs = append(errs, diag.Errorf(path, s.Line, "apply: %s: a set is named by its key", k.Value))
					continue
				}
				if _, ok := l.sets[s.Value]; !ok {
					errs = append(errs, diag.Errorf(path, s.Line, "apply: %s: no set %q in this file: define it, or use %s", k.Value, s.Value, orList(sortedKeys(l.sets))))
					continue
				}
				names = append(names, s.Value)
			}
			l.apply[r] = names
		}
		for _, r := range Roles() {
			if _, ok := l.apply[r]; !ok && !slices.ContainsFunc(apply.Content, func(n *yaml.Node) bool { return n.Value == string(r) }) {
				errs = append(errs, diag.Errorf(path, applyLine, "apply: role %s is missing: list its sets ([] for none)", r))
			}
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return l, nil
}

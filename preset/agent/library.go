package agent

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/suggest"
	"github.com/tessera-dev/tessera/internal/wordlist"
)

// Library is the constraint library: named sets of constraints, and for
// each role the sets that follow its own constraints. It is immutable.
type Library struct {
	path  string
	text  string
	sets  map[string]string
	apply map[Role][]string
}

// Path returns the file the library was read from; "" for a nil
// library.
func (l *Library) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// For returns the constraints the library adds to r's prompt: its sets,
// in the order "apply" lists them, one after the other; "" for a nil
// library.
func (l *Library) For(r Role) string {
	if l == nil {
		return ""
	}
	var b strings.Builder
	for _, name := range l.apply[r] {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.sets[name])
	}
	return b.String()
}

// Sets returns the names of the sets applied to r, in order; none for a
// nil library.
func (l *Library) Sets(r Role) []string {
	if l == nil {
		return nil
	}
	return slices.Clone(l.apply[r])
}

var setName = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// ParseLibrary parses the constraint library from data, the text of the
// file path. Its top level maps set names (lower-case words) to text,
// taken as written, and the key "apply" to a mapping from every role to
// the list of sets it gets. An unknown role, a role left out, a set that
// is not defined or is empty: each is an error at its line and column.
func ParseLibrary(path string, data []byte) (*Library, error) {
	top, err := parser.Parse(path, data)
	if err != nil {
		return nil, err
	}
	if top == nil || top.Kind != yaml.MappingNode {
		line, col := 1, 1
		if top != nil {
			line, col = top.Line, top.Column
		}
		return nil, diag.List{diag.ErrorfAt(path, line, col, "the constraint library is a mapping: set names to their constraints, and \"apply\" to the sets of each role")}
	}
	l := &Library{path: path, text: string(data), sets: map[string]string{}, apply: map[Role][]string{}}
	var errs diag.List
	var apply, applyKey *yaml.Node
	for i := 0; i+1 < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		switch {
		case k.Value == "apply":
			apply, applyKey = v, k
		case !setName.MatchString(k.Value):
			errs = append(errs, at(path, k, "set name %q: use lower-case letters, digits, '_' and '-', starting with a letter", k.Value))
		case v.Kind != yaml.ScalarNode || v.Tag == "!!null" || strings.TrimSpace(v.Value) == "":
			errs = append(errs, at(path, k, "set %q: write its constraints as text, one \"- \" line each", k.Value))
		default:
			l.sets[k.Value] = strings.TrimRight(v.Value, "\n")
		}
	}
	roles := make([]string, 0, len(Roles()))
	for _, r := range Roles() {
		roles = append(roles, string(r))
	}
	switch {
	case apply == nil:
		errs = append(errs, at(path, top, "missing key \"apply\": list the sets of each role, as in \"planner: [common, safety]\""))
	case apply.Kind != yaml.MappingNode:
		errs = append(errs, at(path, applyKey, "\"apply\" maps each role to a list of sets, as in \"planner: [common, safety]\""))
	default:
		for i := 0; i+1 < len(apply.Content); i += 2 {
			k, v := apply.Content[i], apply.Content[i+1]
			r, err := ParseRole(k.Value)
			if err != nil || string(r) != k.Value {
				hint := ""
				if h := suggest.Nearest(k.Value, roles); h != "" {
					hint = fmt.Sprintf("did you mean %q? ", h)
				}
				errs = append(errs, at(path, k, "apply: %q is not a role: %suse planner, executor, replanner, extractor and verifier", k.Value, hint))
				continue
			}
			if v.Kind != yaml.SequenceNode {
				errs = append(errs, at(path, k, "apply: %s: write a list of sets, as in [common, safety] ([] for none)", k.Value))
				continue
			}
			names := []string{}
			for _, s := range v.Content {
				if s.Kind != yaml.ScalarNode {
					errs = append(errs, at(path, s, "apply: %s: a set is named by its key", k.Value))
					continue
				}
				if _, ok := l.sets[s.Value]; !ok {
					use := ""
					if len(l.sets) > 0 {
						use = ", or use " + wordlist.Or(sortedKeys(l.sets))
					}
					errs = append(errs, at(path, s, "apply: %s: no set %q in this file: define it%s", k.Value, s.Value, use))
					continue
				}
				names = append(names, s.Value)
			}
			l.apply[r] = names
		}
		for _, r := range Roles() {
			if _, ok := l.apply[r]; !ok && !slices.ContainsFunc(apply.Content, func(n *yaml.Node) bool { return n.Value == string(r) }) {
				errs = append(errs, at(path, applyKey, "apply: role %s is missing: list its sets ([] for none)", r))
			}
		}
	}
	if len(errs) > 0 {
		errs.Sort()
		return nil, errs
	}
	return l, nil
}

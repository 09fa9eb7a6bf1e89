package yamldoc

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/schema"
)

// PointerPos returns the line and column of the value that the JSON
// Pointer (RFC 6901) p names in the tree at n, where a problem with it
// is best shown: for an object member, its key; for an array item, the
// item; for "", n itself. When p names nothing in the tree, the position
// is that of the deepest value it does name, and found is false. A nil
// n is at 0, 0.
func PointerPos(n *yaml.Node, p string) (line, col int, found bool) {
	place, _, found := follow(n, p)
	if place == nil {
		return 0, 0, false
	}
	return place.Line, place.Column, found
}

// follow walks the JSON Pointer p from n and returns the node to place
// a problem at (a member's key, an item) and the value p names, or the
// deepest it reaches with found false.
func follow(n *yaml.Node, p string) (place, value *yaml.Node, found bool) {
	if n == nil {
		return nil, nil, false
	}
	place, value = n, deref(n)
	if p == "" {
		return place, value, true
	}
	if p[0] != '/' {
		return place, value, false
	}
	for tok := range strings.SplitSeq(p[1:], "/") {
		if strings.Contains(tok, "~") {
			tok = strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
		}
		var next, at *yaml.Node
		switch value.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(value.Content); i += 2 {
				if k := value.Content[i]; k.Kind == yaml.ScalarNode && k.Value == tok {
					next, at = value.Content[i+1], k
					break
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(tok); err == nil && i >= 0 && i < len(value.Content) && strconv.Itoa(i) == tok {
				next, at = value.Content[i], value.Content[i]
			}
		}
		if next == nil {
			return place, value, false
		}
		place, value = at, deref(next)
	}
	return place, value, true
}

// deref follows an alias to the node it names.
func deref(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	return n
}

// SchemaErrors checks the JSON Schema raw, written in the tree at n at
// the JSON Pointer at (raw is that value's JSON), in the file path, with
// schema.CheckMeta, and returns each problem as a diagnostic at the
// place its pointer names (see PointerPos), its message after what
// ("tool \"search\": parameters"). It returns nil for a valid schema.
func SchemaErrors(path string, n *yaml.Node, at string, raw []byte, what string) diag.List {
	probs := schema.CheckMeta(raw)
	if len(probs) == 0 {
		return nil
	}
	errs := make(diag.List, 0, len(probs))
	for _, p := range probs {
		line, col, _ := PointerPos(n, at+p.Pointer)
		errs = append(errs, diag.ErrorfAt(path, line, col, "%s: %s", what, p))
	}
	return errs
}

// ToolNameError checks name, written in the tree at n at the JSON
// Pointer at, in the file path, with schema.CheckToolName, and returns
// the problem as a diagnostic at the name's value, its message after
// what ("tool 2"), or nil when the name is valid.
func ToolNameError(path string, n *yaml.Node, at, name, what string) *diag.Error {
	err := schema.CheckToolName(name)
	if err == nil {
		return nil
	}
	var line, col int
	if place, value, found := follow(n, at); found {
		line, col = value.Line, value.Column
	} else if place != nil {
		line, col = place.Line, place.Column
	}
	e := diag.Wrap(path, line, err, "%s: name %q: %v", what, name, err)
	e.Col = col
	return e
}

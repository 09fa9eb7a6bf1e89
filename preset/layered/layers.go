package layered

import (
	"path"

	"github.com/tessera-dev/tessera/diag"
	"github.com/tessera-dev/tessera/internal/yamldoc"
	"github.com/tessera-dev/tessera/prompt"
)

// layersDir is the directory, in a setup, that the layer files may live
// in instead of the setup's top: layers/constitution.md, layers/rules.md,
// layers/rules/<mode>.md.
const layersDir = "layers"

// builtinLayers are the layer files a setup may leave out: the built-in
// text stands in, and the selection's report names it (Defaults).
var builtinLayers = map[string]string{
	"constitution.md": "defaults/constitution.md",
	"rules.md":        "defaults/rules.md",
}

// readLayers reads the setup's layer files into s: each from the setup's
// top or from layers/ (both is an error), the built-in constitution.md
// and rules.md when the setup has none (named in s.Defaults), and the
// modes' rules when there are any.
func readLayers(rd ReadFunc, s *Setup) error {
	read := func(name string) (string, error) {
		var (
			text  string
			found string
		)
		for _, p := range []string{name, path.Join(layersDir, name)} {
			at, data, err := rd(p)
			if err != nil {
				if isNotExist(err) {
					continue
				}
				return "", err
			}
			if found != "" {
				return "", diag.Errorf(at, 0, "%s is also at %s: keep one of the two", name, found)
			}
			t, err := prompt.Normalize(data)
			if err != nil {
				return "", yamldoc.EncodingError(at, err)
			}
			text, found = t, at
		}
		if found == "" {
			if def, ok := builtinLayers[name]; ok {
				data, err := defaults.ReadFile(def)
				if err != nil {
					return "", err
				}
				s.Defaults = append(s.Defaults, name)
				return prompt.Normalize(data)
			}
		}
		return text, nil
	}
	var err error
	if s.Constitution, err = read("constitution.md"); err != nil {
		return err
	}
	if s.Rules, err = read("rules.md"); err != nil {
		return err
	}
	for _, m := range modes {
		if s.ModeRules[m], err = read("rules/" + m + ".md"); err != nil {
			return err
		}
	}
	return nil
}

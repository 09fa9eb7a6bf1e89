package tessera_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// maxPresetExports is the most exported names a preset package may
// declare: a preset's surface is its Parse or Load, the value whose
// Layout lays it out, New, and the types its files decode into; more is
// a sign that helpers only the package uses were exported, or that one
// thing is offered two ways.
const maxPresetExports = 40

// exportsAllowed holds the preset packages that may still export more
// than maxPresetExports names, each with the reason.
var exportsAllowed = map[string]string{}

// TestPresetExports checks that no package under preset/ (each preset
// and the packages beside it, such as preset/agent/reply) exports more
// than maxPresetExports names. What counts is each exported identifier
// declared at the top level of its non-test files: functions (not
// methods), types, variables and constants, one per name (a const block
// of five names is five). Methods and struct fields are not counted:
// they are reached through a type that is.
func TestPresetExports(t *testing.T) {
	dirs := map[string]bool{}
	err := filepath.WalkDir("preset", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && filepath.Dir(path) != "preset" {
			dirs[filepath.ToSlash(filepath.Dir(path))] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) < 5 {
		t.Fatalf("found %d preset packages under preset/, want the five presets at least", len(dirs))
	}
	for _, dir := range slices.Sorted(maps.Keys(dirs)) {
		names, err := exportedNames(dir)
		if err != nil {
			t.Fatal(err)
		}
		reason, allowed := exportsAllowed[dir]
		switch {
		case len(names) > maxPresetExports && allowed:
			t.Logf("%s exports %d names, over %d (allowed: %s)", dir, len(names), maxPresetExports, reason)
		case len(names) > maxPresetExports:
			t.Errorf("%s exports %d names, over %d: unexport what only the package uses, move helpers to an internal package, or fold names that do the same thing:\n\t%s",
				dir, len(names), maxPresetExports, strings.Join(names, "\n\t"))
		case allowed:
			t.Logf("%s exports %d names, within %d: remove it from exportsAllowed", dir, len(names), maxPresetExports)
		}
	}
}

// exportedNames returns the exported top-level functions, types,
// variables and constants of the non-test files in dir, each as
// "kind name", sorted.
func exportedNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	fset := token.NewFileSet()
	var names []string
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv == nil && d.Name.IsExported() {
					names = append(names, "func "+d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							names = append(names, "type "+s.Name.Name)
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if id.IsExported() {
								names = append(names, d.Tok.String()+" "+id.Name)
							}
						}
					}
				}
			}
		}
	}
	slices.Sort(names)
	return names, nil
}

package agent

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ListOptions bounds a workspace listing.
type ListOptions struct {
	// MaxDepth is how many levels of directories are listed; 0 means
	// DefaultListDepth.
	MaxDepth int
	// MaxEntries is how many entries are listed in all; 0 means
	// DefaultListEntries.
	MaxEntries int
}

// The default bounds of a workspace listing.
const (
	DefaultListDepth   = 3
	DefaultListEntries = 200
)

// IgnoredDirs returns the names of the directories a workspace listing
// leaves out: version control, dependencies, caches and build output.
func IgnoredDirs() []string {
	return []string{
		".bzr", ".git", ".hg", ".jj", ".svn", "_darcs", "CVS",
		".cache", ".eggs", ".gradle", ".mypy_cache", ".next", ".nox", ".nuxt", ".pytest_cache",
		".ruff_cache", ".terraform", ".tox", ".venv", "__pycache__", "build", "dist",
		"node_modules", "target", "venv",
	}
}

// ListWorkspace lists the directory dir for the planner: one entry per
// line, indented two spaces per level, directories marked with a final
// '/' and symbolic links with '@' (never followed), in byte order of
// their names at each level, so the same tree always gives the same text.
// Version-control and build directories (IgnoredDirs, and *.egg-info) are
// left out. The listing stops at opts.MaxDepth levels (a directory with
// deeper entries is marked "/ …") and opts.MaxEntries entries, and says
// so in a note at its end. A name with control characters (C0, DEL or
// C1) is written quoted, as a Go string, so "\x1b" shows as \x1b.
func ListWorkspace(dir string, opts ListOptions) (string, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = DefaultListDepth
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = DefaultListEntries
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory: give the directory the agent works in", dir)
	}
	l := &lister{opts: opts, ignored: IgnoredDirs()}
	l.walk(dir, 0)
	var b strings.Builder
	for i, line := range l.lines {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(line)
	}
	note := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if len(l.lines) == 0 && !l.cut {
		note("(empty)")
	}
	if l.deep {
		levels := "levels"
		if opts.MaxDepth == 1 {
			levels = "level"
		}
		note(fmt.Sprintf("(directories marked \"/ …\" hold entries deeper than %d %s, not listed)", opts.MaxDepth, levels))
	}
	if l.cut {
		note(fmt.Sprintf("(listing cut at %d entries: the rest is not shown)", opts.MaxEntries))
	}
	if l.unreadable > 0 {
		note(fmt.Sprintf("(%d director%s could not be read)", l.unreadable, map[bool]string{true: "y", false: "ies"}[l.unreadable == 1]))
	}
	return b.String(), nil
}

type lister struct {
	opts       ListOptions
	ignored    []string
	lines      []string
	cut, deep  bool
	unreadable int
}

func (l *lister) walk(dir string, depth int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		l.unreadable++
		return
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	indent := strings.Repeat("  ", depth)
	for _, e := range entries {
		if l.cut {
			return
		}
		name := e.Name()
		isDir := e.IsDir()
		if isDir && (slices.Contains(l.ignored, name) || strings.HasSuffix(name, ".egg-info")) {
			continue
		}
		if len(l.lines) == l.opts.MaxEntries {
			l.cut = true
			return
		}
		shown := name
		if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }) {
			shown = strconv.Quote(name)
		}
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			l.lines = append(l.lines, indent+shown+"@")
		case isDir && depth+1 >= l.opts.MaxDepth:
			line := indent + shown + "/"
			if sub, err := os.ReadDir(filepath.Join(dir, name)); err == nil && len(sub) > 0 {
				line += " …"
				l.deep = true
			}
			l.lines = append(l.lines, line)
		case isDir:
			l.lines = append(l.lines, indent+shown+"/")
			l.walk(filepath.Join(dir, name), depth+1)
		default:
			l.lines = append(l.lines, indent+shown)
		}
	}
}

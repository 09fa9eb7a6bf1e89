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
	// MaxDepth is how many levels of directories are listed; 0 means 3.
	MaxDepth int
	// MaxEntries is how many entries are listed in all; 0 means 200.
	MaxEntries int
}

// The default bounds of a workspace listing.
const (
	defaultListDepth   = 3
	defaultListEntries = 200
)

// ignoredDirs returns the names of the directories a workspace listing
// leaves out: version control, dependencies, caches and build output.
func ignoredDirs() []string {
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
// Version-control, dependency, cache and build directories (.git,
// node_modules, __pycache__, .venv, build, dist, target and the like, and
// *.egg-info) are left out. The listing stops at opts.MaxDepth levels (a directory with
// deeper entries is marked "/ …") and opts.MaxEntries entries, and says
// so in a note at its end. Entries are taken breadth-first: every entry
// of a level before any of the next, so a cut listing still shows every
// top-level entry (when there are no more of them than the cap), and the
// entries taken are written as a tree. A name with control characters
// (C0, DEL or C1) is written quoted, as a Go string, so "\x1b" shows as
// \x1b.
func ListWorkspace(dir string, opts ListOptions) (string, error) {
	if opts.MaxDepth <= 0 {
		opts.MaxDepth = defaultListDepth
	}
	if opts.MaxEntries <= 0 {
		opts.MaxEntries = defaultListEntries
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("workspace %s: %w", dir, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("workspace %s is not a directory: give the directory the agent works in", dir)
	}
	l := &lister{opts: opts, ignored: ignoredDirs()}
	root := l.walk(dir)
	var b strings.Builder
	var write func(n *entry, depth int)
	write = func(n *entry, depth int) {
		for _, c := range n.children {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			for range depth {
				b.WriteString("  ")
			}
			b.WriteString(c.line)
			write(c, depth+1)
		}
	}
	write(root, 0)
	note := func(s string) {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	if l.count == 0 && !l.cut {
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

// entry is a listed entry: its line (the name as shown, with its mark),
// and the entries listed under it.
type entry struct {
	line     string
	children []*entry
}

type lister struct {
	opts       ListOptions
	ignored    []string
	count      int
	cut, deep  bool
	unreadable int
}

// walk lists dir breadth-first: the entries of each level, directory by
// directory in the order they were listed, before those of the next
// level, until opts.MaxEntries are taken. It returns dir's entry.
func (l *lister) walk(dir string) *entry {
	root := &entry{}
	type pending struct {
		path  string
		depth int
		e     *entry
	}
	queue := []pending{{dir, 0, root}}
	for len(queue) > 0 && !l.cut {
		d := queue[0]
		queue = queue[1:]
		entries, err := os.ReadDir(d.path)
		if err != nil {
			l.unreadable++
			continue
		}
		slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, e := range entries {
			name := e.Name()
			isDir := e.IsDir()
			if isDir && (slices.Contains(l.ignored, name) || strings.HasSuffix(name, ".egg-info")) {
				continue
			}
			if l.count == l.opts.MaxEntries {
				l.cut = true
				break
			}
			l.count++
			shown := name
			if strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 || r >= 0x7f && r <= 0x9f }) {
				shown = strconv.Quote(name)
			}
			n := &entry{line: shown}
			path := filepath.Join(d.path, name)
			switch {
			case e.Type()&fs.ModeSymlink != 0:
				n.line += "@"
			case isDir && d.depth+1 >= l.opts.MaxDepth:
				n.line += "/"
				if sub, err := os.ReadDir(path); err == nil && len(sub) > 0 {
					n.line += " …"
					l.deep = true
				}
			case isDir:
				n.line += "/"
				queue = append(queue, pending{path, d.depth + 1, n})
			}
			d.e.children = append(d.e.children, n)
		}
	}
	return root
}

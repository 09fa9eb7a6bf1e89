package agent_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent"
)

// listed returns the entries of a listing as paths ("a/b/"), and their
// depths, in the order listed; notes are left out.
func listed(listing string) (paths []string, depths []int) {
	var stack []string
	for line := range strings.SplitSeq(listing, "\n") {
		if strings.HasPrefix(line, "(") {
			continue
		}
		trimmed := strings.TrimLeft(line, " ")
		depth := (len(line) - len(trimmed)) / 2
		name := strings.TrimSuffix(trimmed, " …")
		stack = append(stack[:depth], strings.TrimSuffix(name, "/"))
		p := strings.Join(stack, "/")
		if strings.HasSuffix(name, "/") {
			p += "/"
		}
		paths = append(paths, p)
		depths = append(depths, depth)
	}
	return paths, depths
}

// TestListWorkspaceBreadthFirst: with more entries than the cap, every
// top-level entry is listed, before any deeper one is taken; a 31-entry
// top level whose first directories are full is not cut short.
func TestListWorkspaceBreadthFirst(t *testing.T) {
	var files []string
	for i := range 31 {
		for j := range 10 {
			files = append(files, fmt.Sprintf("d%02d/f%d.txt", i, j))
		}
	}
	dir := tree(t, files...)
	got, err := agent.ListWorkspace(dir, agent.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paths, depths := listed(got)
	for i := range 31 {
		if name := fmt.Sprintf("d%02d/", i); !slices.Contains(paths, name) {
			t.Errorf("%s not listed:\n%s", name, got)
		}
	}
	if n := len(paths); n != agent.DefaultListEntries {
		t.Errorf("%d entries listed, want %d", n, agent.DefaultListEntries)
	}
	if !strings.HasSuffix(got, "\n(listing cut at 200 entries: the rest is not shown)") {
		t.Errorf("no note of the cut:\n%s", got)
	}
	// Written as a tree: a directory's entries follow it.
	if !strings.HasPrefix(got, "d00/\n  f0.txt\n  f1.txt\n") || depths[0] != 0 {
		t.Errorf("not a tree:\n%s", got[:min(len(got), 200)])
	}
	if got != must(agent.ListWorkspace(dir, agent.ListOptions{})) {
		t.Error("listing is not deterministic")
	}
}

func must(s string, err error) string {
	if err != nil {
		panic(err)
	}
	return s
}

// TestListWorkspaceBreadthFirstProperty: over random trees and caps, an
// entry is listed only when every entry of the levels above it is, and
// the entries of a level are taken in tree order: a listing cut at n
// entries is the first n entries of the full listing in breadth-first
// order.
func TestListWorkspaceBreadthFirstProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 30 {
		var files []string
		var walk func(prefix string, depth int)
		walk = func(prefix string, depth int) {
			for i := range 1 + rng.IntN(4) {
				if depth < 3 && rng.IntN(2) == 0 {
					walk(fmt.Sprintf("%sd%d/", prefix, i), depth+1)
				} else {
					files = append(files, fmt.Sprintf("%sf%d", prefix, i))
				}
			}
		}
		walk("", 0)
		dir := tree(t, files...)
		opts := agent.ListOptions{MaxDepth: 10, MaxEntries: 10000}
		full, depths := listed(must(agent.ListWorkspace(dir, opts)))
		// The full listing in breadth-first order: by depth, and in tree
		// order within a depth.
		bfs := slices.Clone(full)
		slices.SortStableFunc(bfs, func(a, b string) int {
			return depths[slices.Index(full, a)] - depths[slices.Index(full, b)]
		})
		for n := 1; n < len(full); n++ {
			opts.MaxEntries = n
			got, _ := listed(must(agent.ListWorkspace(dir, opts)))
			want := bfs[:n]
			if !slices.Equal(sorted(got), sorted(want)) {
				t.Fatalf("iteration %d, cap %d: listed %v, want the first %d breadth-first: %v", iter, n, got, n, want)
			}
		}
		_ = os.RemoveAll(dir)
	}
}

func sorted(s []string) []string {
	s = slices.Clone(s)
	slices.Sort(s)
	return s
}

// TestListWorkspaceRepository: the listing of this repository shows every
// top-level entry the lister does not leave out.
func TestListWorkspaceRepository(t *testing.T) {
	root := filepath.Join("..", "..")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	got, err := agent.ListWorkspace(root, agent.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	paths, _ := listed(got)
	for _, e := range entries {
		name := e.Name()
		switch {
		case e.IsDir() && (slices.Contains(agent.IgnoredDirs(), name) || strings.HasSuffix(name, ".egg-info")):
			continue
		case e.Type()&os.ModeSymlink != 0:
			name += "@"
		case e.IsDir():
			name += "/"
		}
		if !slices.Contains(paths, name) {
			t.Errorf("top-level %s not listed", name)
		}
	}
}

// Package golden compares test output with golden files under testdata,
// and rewrites them when a test runs with -update. Request bodies get a
// set of their own: each body indented for review, the stable-prefix
// metadata of all of them in meta.txt, and files no longer produced
// reported.
package golden

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Compare fails t unless the file at path holds got; with update it
// writes got there instead.
func Compare(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from its golden file; run with -update if the change is intended:\n%s", path, got)
	}
}

// Bodies is a directory of golden request bodies. Create it with
// NewBodies, add each body with Add, then call Finish.
type Bodies struct {
	dir    string
	update bool
	meta   strings.Builder
	names  []string
}

// NewBodies starts the golden bodies of dir; with update the directory
// is emptied first, so files no longer produced go away.
func NewBodies(t testing.TB, dir string, update bool) *Bodies {
	t.Helper()
	if update {
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	return &Bodies{dir: dir, update: update}
}

// Add checks that body is compact JSON and compares it, indented, with
// the file of that name; meta (the body's stable prefix: hash, tokens,
// counter, breakpoints) goes on its line of meta.txt.
func (s *Bodies) Add(t testing.TB, file string, body []byte, meta string) {
	t.Helper()
	var compact bytes.Buffer
	if err := json.Compact(&compact, body); err != nil || !bytes.Equal(compact.Bytes(), body) {
		t.Errorf("%s: body is not compact JSON (%v)", filepath.Join(s.dir, file), err)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, body, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')
	fmt.Fprintf(&s.meta, "%s %s\n", file, meta)
	s.names = append(s.names, file)
	Compare(t, filepath.Join(s.dir, file), indented.Bytes(), s.update)
}

// Finish compares meta.txt and reports golden files that no body
// produced.
func (s *Bodies) Finish(t testing.TB) {
	t.Helper()
	Compare(t, filepath.Join(s.dir, "meta.txt"), []byte(s.meta.String()), s.update)
	names := append(s.names, "meta.txt")
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !slices.Contains(names, e.Name()) {
			t.Errorf("%s: golden file no longer produced (delete it, or run with -update)", filepath.Join(s.dir, e.Name()))
		}
	}
}

// WordCounter is a tokenizer.Counter for tests: one token per
// whitespace-separated word, so goldens do not move with a vocabulary.
type WordCounter struct{}

// Count counts the words of s.
func (WordCounter) Count(s string) int {
	n, inWord := 0, false
	for i := 0; i < len(s); i++ {
		space := s[i] == ' ' || s[i] == '\n' || s[i] == '\t' || s[i] == '\r'
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// Name names the counter in reports.
func (WordCounter) Name() string { return "test/words" }

// Exact reports false: it is no model's tokenizer.
func (WordCounter) Exact() bool { return false }

// ReadGzip returns the decompressed content of the gzip file at path,
// failing t when it cannot be read.
func ReadGzip(t testing.TB, path string) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	data, err := io.ReadAll(z)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return data
}

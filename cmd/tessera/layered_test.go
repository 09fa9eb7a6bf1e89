package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestProgressBar: the bar is redrawn on one line and ended when done;
// a buffer is not a terminal, so the commands draw none there.
func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := progressBar(&b, "embedding")
	p(0, 4)
	p(2, 4)
	p(4, 4)
	want := "\rembedding [                              ] 0/4" +
		"\rembedding [###############               ] 2/4" +
		"\rembedding [##############################] 4/4\n"
	if b.String() != want {
		t.Errorf("got %q\nwant %q", b.String(), want)
	}
	if isTerminal(&b) {
		t.Error("a buffer is a terminal")
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "f"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("a regular file is a terminal")
	}
}

// TestWriteAtomic: the file is replaced whole, keeps its permissions, and
// no temporary file is left behind.
func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "vectors.json")
	if err := writeAtomic(name, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(name); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v", st.Mode().Perm())
	}
	if err := os.Chmod(name, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := writeAtomic(name, []byte("two")); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(name)
	st, _ := os.Stat(name)
	entries, _ := os.ReadDir(dir)
	if string(data) != "two" || st.Mode().Perm() != 0o600 || len(entries) != 1 {
		t.Errorf("%q, mode %v, %d entries", data, st.Mode().Perm(), len(entries))
	}
	if err := writeAtomic(filepath.Join(dir, "missing", "v.json"), nil); err == nil {
		t.Error("no error for a missing directory")
	}
}

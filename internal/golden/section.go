package golden

import (
	"bytes"
	"fmt"
	"os"
	"testing"
)

// CompareSection is Compare for the part of a hand-written document
// that a test generates: the lines between "<!-- BEGIN name -->" and
// "<!-- END name -->" in the file at path must be got. With update it
// rewrites that part and leaves the rest of the file as it is, so prose
// around a generated table or reference is kept.
func CompareSection(t testing.TB, path, name string, got []byte, update bool) {
	t.Helper()
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	begin, end := []byte("<!-- BEGIN "+name+" -->\n"), []byte("<!-- END "+name+" -->")
	i := bytes.Index(doc, begin)
	j := bytes.Index(doc, end)
	if i < 0 || j < i {
		t.Fatalf("%s has no %q … %q markers: add them where the generated part goes", path, begin[:len(begin)-1], end)
	}
	i += len(begin)
	if bytes.Equal(doc[i:j], got) {
		return
	}
	if !update {
		t.Errorf("%s: the part between the %s markers is out of date; run the test with -update and review the diff", path, name)
		return
	}
	out := make([]byte, 0, len(doc)-(j-i)+len(got))
	out = append(append(append(out, doc[:i]...), got...), doc[j:]...)
	if err := writeFile(path, out); err != nil {
		t.Fatal(err)
	}
}

// writeFile replaces the file at path with data by way of a temporary
// file beside it, so an interrupted update never leaves half a file.
func writeFile(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return fmt.Errorf("golden: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("golden: %w", err)
	}
	return nil
}

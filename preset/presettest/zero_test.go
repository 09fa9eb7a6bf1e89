package presettest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/presettest"
)

// recorder is a testing.TB that keeps the errors reported to it.
type recorder struct {
	testing.TB
	errs []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

func (r *recorder) Fatal(args ...any) { r.TB.Fatal(args...) }

// T is an exported type of the fake package below.
type T struct{}

// M panics on a nil receiver.
func (t *T) M() int { return len(fmt.Sprint(*t)) }

// TestCheckZeroValues: the exported functions and methods are found in the
// package's non-test files; a function missing from the table, a name the
// package does not export, and a panic are each reported by name.
func TestCheckZeroValues(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.go":      "package p\n\nfunc F(s *string) int { return len(*s) }\n\nfunc G() {}\n\nfunc h() {}\n",
		"b.go":      "package p\n\ntype T struct{}\n\nfunc (t *T) M() int { return 0 }\n\ntype u struct{}\n\nfunc (u) N() {}\n\nfunc (T) V() {}\n",
		"a_test.go": "package p\n\nfunc TestX() {}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	names, err := presettest.Exported(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"F", "G", "T.M", "T.V"}; !slices.Equal(names, want) {
		t.Errorf("exported %v, want %v", names, want)
	}
	r := &recorder{TB: t}
	presettest.CheckZeroValues(r, dir, map[string]any{
		"F":   func(s *string) int { return len(*s) },
		"T.M": (*T).M,
		"T.V": presettest.Skip("a value receiver"),
		"Old": func() {},
	})
	got := strings.Join(r.errs, "\n")
	for _, want := range []string{
		"G is exported by " + dir + " but not in the table",
		"Old is in the table of functions called with zero values, but " + dir + " does not export it",
		"F panics on zero values: runtime error: invalid memory address or nil pointer dereference",
		"T.M panics on zero values",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("reports:\n%s\nwant one with %q", got, want)
		}
	}
	if strings.Contains(got, "F panics on pointers to zero values") {
		t.Errorf("F given a pointer to a zero string panics:\n%s", got)
	}
}

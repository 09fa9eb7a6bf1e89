// Package diagtest holds test helpers for code that reports problems as
// a diag.List.
package diagtest

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/diag"
)

// CheckPlaces checks that every problem of err is in the file path and,
// when it has a line, at a line of data and a column of that line (in
// bytes, or just past its end); so are its related places in path. An
// err that is not a non-empty diag.List fails the test.
func CheckPlaces(t testing.TB, path string, data []byte, err error) {
	t.Helper()
	var list diag.List
	if !errors.As(err, &list) || len(list) == 0 {
		t.Fatalf("error %v is not a diag.List", err)
	}
	lines := bytes.Split(data, []byte{'\n'})
	check := func(what string, line, col int) {
		if line == 0 && col == 0 {
			return
		}
		if line < 1 || line > len(lines) || col < 1 || col > len(lines[line-1])+1 {
			t.Fatalf("%s at %d:%d, not a place of the %d-line file: %v", what, line, col, len(lines), err)
		}
	}
	for _, e := range list {
		if e.Path != path {
			t.Fatalf("problem in %q, not %q: %v", e.Path, path, e)
		}
		check("problem", e.Line, e.Col)
		for _, r := range e.Related {
			if r.Path == path {
				check("related place", r.Line, r.Col)
			}
		}
	}
}

// Problems returns err's message as its lines, one problem each; nil for
// a nil err.
func Problems(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

// CheckProblems checks that err has as many problems as want, each
// starting with its counterpart; what names the case in failures.
func CheckProblems(t testing.TB, what string, err error, want []string) {
	t.Helper()
	got := Problems(err)
	if len(got) != len(want) {
		t.Fatalf("%s: %d problems, want %d:\n%s", what, len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("%s: problem %d:\n got %s\nwant %s…", what, i+1, got[i], want[i])
		}
	}
}

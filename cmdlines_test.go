package tessera_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxCmdLines is the most lines a Go file under cmd/ may have, test files
// included: a command is flags in, one library call, print, one file per
// command; a file that grows past this holds more than its command.
const maxCmdLines = 300

// TestCmdFileLines checks that no Go file under cmd/ (test data aside)
// is over maxCmdLines lines, counted as wc -l counts them.
func TestCmdFileLines(t *testing.T) {
	n := 0
	err := filepath.WalkDir("cmd", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		if lines := bytes.Count(data, []byte{'\n'}); lines > maxCmdLines {
			t.Errorf("%s has %d lines, over %d: split it, one command or concern a file", filepath.ToSlash(path), lines, maxCmdLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatal("no Go files under cmd/")
	}
}

package provider

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from current output")

// goldenCase is one body to compare with its golden file.
type goldenCase struct {
	file   string // under testdata/golden/<preset>/
	format Format
	req    Request
	opts   Options
}

// goldenCases returns the golden cases: the fixture in every format with
// cache breakpoints and the test counter, and in the OpenAI formats with
// the "system" role. (The bodies of the presets' assembled prompts are
// the engine's goldens, under engine/testdata/bodies.)
func goldenCases() map[string][]goldenCase {
	opts := Options{CacheBreakpoints: true, Counter: wordCounter{}}
	var cases []goldenCase
	for _, f := range Formats() {
		r := fixtureRequest()
		r.Model = models[f]
		cases = append(cases, goldenCase{f.String() + ".json", f, r, opts})
	}
	for _, f := range []Format{OpenAIChat, OpenAIResponses} {
		r := fixtureRequest()
		r.Model = models[f]
		o := opts
		o.SystemRole = "system"
		cases = append(cases, goldenCase{f.String() + ".system-role.json", f, r, o})
	}
	return map[string][]goldenCase{"fixture": cases}
}

// TestGolden encodes each golden request for every format and compares
// each body, indented for review, with testdata/golden/<preset>/; the
// stable-prefix metadata of all of them is in meta.txt beside them. Run
// go test ./provider -run TestGolden -update after an intended change,
// and review the diff.
func TestGolden(t *testing.T) {
	for preset, cases := range goldenCases() {
		dir := filepath.Join("testdata", "golden", preset)
		if *update {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
		}
		var meta strings.Builder
		var names []string
		for _, c := range cases {
			b, err := Encode(c.format, c.req, c.opts)
			if err != nil {
				t.Fatalf("%s/%s: %v", preset, c.file, err)
			}
			var compact bytes.Buffer
			if err := json.Compact(&compact, b.JSON); err != nil || !bytes.Equal(compact.Bytes(), b.JSON) {
				t.Errorf("%s/%s: body is not compact JSON (%v)", preset, c.file, err)
			}
			var indented bytes.Buffer
			if err := json.Indent(&indented, b.JSON, "", "  "); err != nil {
				t.Fatal(err)
			}
			indented.WriteByte('\n')
			fmt.Fprintf(&meta, "%s hash=%s tokens=%d counter=%s breakpoints=%d\n",
				c.file, b.StablePrefixHash, b.StablePrefixTokens, b.Counter, b.CacheBreakpoints)
			names = append(names, c.file)
			compareGolden(t, filepath.Join(dir, c.file), indented.Bytes())
		}
		compareGolden(t, filepath.Join(dir, "meta.txt"), []byte(meta.String()))
		names = append(names, "meta.txt")
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if !slices.Contains(names, e.Name()) {
				t.Errorf("%s: golden file no longer produced (delete it, or run with -update)", filepath.Join(dir, e.Name()))
			}
		}
	}
}

func compareGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
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

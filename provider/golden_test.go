package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/catalog"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from current output")

// goldenCase is one body to compare with its golden file.
type goldenCase struct {
	file   string // under testdata/golden/<preset>/
	format Format
	req    Request
	opts   Options
}

// presetCases returns the golden cases of each preset: every format with
// cache breakpoints and the test counter, and, for the fixture, the
// OpenAI formats with the "system" role.
func presetCases(t *testing.T) map[string][]goldenCase {
	opts := Options{CacheBreakpoints: true, Counter: wordCounter{}}
	all := func(req Request) []goldenCase {
		var cs []goldenCase
		for _, f := range Formats() {
			r := req
			r.Model = models[f]
			cs = append(cs, goldenCase{f.String() + ".json", f, r, opts})
		}
		return cs
	}
	presets := map[string][]goldenCase{
		"template": all(templateRequest(t)),
		"fixture":  all(fixtureRequest(t)),
	}
	for _, f := range []Format{OpenAIChat, OpenAIResponses} {
		r := fixtureRequest(t)
		r.Model = models[f]
		o := opts
		o.SystemRole = "system"
		presets["fixture"] = append(presets["fixture"], goldenCase{f.String() + ".system-role.json", f, r, o})
	}
	for name, req := range canonicalCases(t) {
		presets[name] = all(req)
	}
	return presets
}

// templateRequest is the template preset (design 001): the whole
// assembled prompt of the example catalog's pm_discovery.v1/pgc node as
// one stable user-side part.
func templateRequest(t *testing.T) Request {
	t.Helper()
	ctx := context.Background()
	c, err := catalog.Open(ctx, filepath.Join("..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	a, err := c.Assemble(ctx, "pm_discovery.v1", "pgc")
	if err != nil {
		t.Fatal(err)
	}
	req, err := FromPrompt(a.Prompt, nil, StableKeys(""))
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// TestGolden encodes every preset's request for every format and compares
// each body, indented for review, with testdata/golden/<preset>/; the
// stable-prefix metadata of all of them is in meta.txt beside them. Run
// go test ./provider -run TestGolden -update after an intended change,
// and review the diff.
func TestGolden(t *testing.T) {
	for preset, cases := range presetCases(t) {
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

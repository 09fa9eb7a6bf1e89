package provider

import (
	"flag"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/internal/golden"
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
	opts := Options{CacheBreakpoints: true, Counter: golden.WordCounter{}}
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
		set := golden.NewBodies(t, filepath.Join("testdata", "golden", preset), *update)
		for _, c := range cases {
			b, err := Encode(c.format, c.req, c.opts)
			if err != nil {
				t.Fatalf("%s/%s: %v", preset, c.file, err)
			}
			set.Add(t, c.file, b.JSON, fmt.Sprintf("hash=%s tokens=%d counter=%s breakpoints=%d", b.StablePrefixHash, b.StablePrefixTokens, b.Counter, b.CacheBreakpoints))
		}
		set.Finish(t)
	}
}

package canonical

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from current output")

// goldenMeta is what the golden .meta.json files hold besides the text:
// the hash, the section spans and the assembly metadata.
type goldenMeta struct {
	Hash         string          `json:"hash"`
	Sections     any             `json:"sections"`
	Retention    Retention       `json:"retention"`
	Redactions   any             `json:"redactions"`
	OutputName   string          `json:"output_name,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Tools        []string        `json:"tools,omitempty"`
}

// TestExamplesGolden assembles every spec under examples/canonical and
// compares the text and metadata with testdata/golden. Run
// go test ./canonical -run TestExamplesGolden -update after an intended
// change, and review the diff.
func TestExamplesGolden(t *testing.T) {
	specs, err := filepath.Glob(filepath.Join("..", "..", "examples", "canonical", "*.yaml"))
	if err != nil || len(specs) == 0 {
		t.Fatalf("no example specs: %v", err)
	}
	golden := filepath.Join("testdata", "golden")
	want := map[string]bool{}
	for _, path := range specs {
		name := strings.TrimSuffix(filepath.Base(path), ".yaml")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		spec, err := ParseSpec(filepath.ToSlash(path), data)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Assemble(context.Background(), spec, Config{})
		if err != nil {
			t.Fatal(err)
		}
		meta := goldenMeta{
			Hash: res.Prompt.Hash, Sections: res.Prompt.Sections, Retention: res.Retention,
			Redactions: res.Redactions, OutputName: res.OutputName, OutputSchema: res.OutputSchema,
		}
		for _, s := range res.Sections {
			for _, tool := range s.Tools {
				meta.Tools = append(meta.Tools, s.Key+": "+tool.Name)
			}
		}
		if len(res.Redactions) == 0 {
			meta.Redactions = []any{}
		}
		metaJSON, err := json.MarshalIndent(meta, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{
			name + ".txt":       res.Prompt.Text + "\n",
			name + ".meta.json": string(metaJSON) + "\n",
		}
		for file, got := range files {
			want[file] = true
			p := filepath.Join(golden, file)
			if *update {
				if err := os.WriteFile(p, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			w, err := os.ReadFile(p)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(w) {
				t.Errorf("%s differs from its golden file; run with -update if the change is intended:\n%s", file, got)
			}
		}
	}
	entries, _ := os.ReadDir(golden)
	for _, e := range entries {
		if !want[e.Name()] {
			if *update {
				os.Remove(filepath.Join(golden, e.Name()))
				continue
			}
			t.Errorf("golden file %s is no longer produced (run with -update)", e.Name())
		}
	}
}

// TestDesign004Example checks that the example spec renders exactly the
// text of design 004's "Example — v2 Canonical Text", copied verbatim
// from the design into testdata/design004_example.txt: same headings,
// order, bullets, priority markers, fences and truncation note, byte for
// byte.
func TestDesign004Example(t *testing.T) {
	design, err := os.ReadFile(filepath.Join("testdata", "design004_example.txt"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("testdata", "golden", "v2-example.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(design) {
		t.Errorf("the golden output differs from the design's example:\n--- got\n%s\n--- design\n%s", got, design)
	}
	// The golden file is what Assemble renders today, not a stale copy.
	res := assembleFile(t, filepath.Join("..", "..", "examples", "canonical", "v2-example.yaml"), Config{})
	if res.Prompt.Text+"\n" != string(design) {
		t.Errorf("Assemble(v2-example.yaml) differs from the design's example:\n%s", res.Prompt.Text)
	}
}

func assembleFile(t testing.TB, path string, cfg Config) *Result {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	spec, err := ParseSpec(filepath.ToSlash(path), data)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Assemble(context.Background(), spec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

package budget

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden from current output")

// golden compares got with testdata/golden/name, or rewrites it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./budget -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (run go test ./budget -update if the change is intended):\n%s\nwant:\n%s", name, got, want)
	}
}

func TestWriteTableGolden(t *testing.T) {
	secs := []prompt.Section{
		sec("system", 0, prompt.TrimNever, "Answer in English. Cite the section you used."),
		{Key: "memory", Title: "Memory", Items: items(10, map[int]bool{0: true}), Priority: 4, Trim: prompt.TrimLowestRelevance},
		sec("context", 5, prompt.TrimTruncate, words(300, 3)),
		sec("tools", 6, prompt.TrimDrop, words(30, 3)),
	}
	res, err := Fit(ctx, secs, plainRender, Budget{Context: 400, Reserve: 20, Overhead: 7}, Options{Counter: tokenizer.O200kBase()})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := res.Report.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "explain.txt", b.Bytes())
	golden(t, "fitted.txt", []byte(res.Prompt.Text))
}

func TestBar(t *testing.T) {
	for _, tc := range []struct {
		n, limit int
		want     string
	}{
		{0, 100, "····················"},
		{100, 100, "████████████████████"},
		{250, 100, "████████████████████"},
		{50, 100, "██████████··········"},
		{51, 100, "██████████▏·········"},
	} {
		if got := bar(tc.n, tc.limit); got != tc.want {
			t.Errorf("bar(%d, %d) = %q, want %q", tc.n, tc.limit, got, tc.want)
		}
	}
}

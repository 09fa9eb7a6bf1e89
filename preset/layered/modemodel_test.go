package layered

import (
	"maps"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// TestModeLearned holds when the mode model decides a task's mode: for a
// catalog found by its keywords, where the report's reason says so and
// what the rules said; never for a mode the request gives, an
// interactive session, changes in Git, a setup with its own mode
// keywords, or a software catalog.
func TestModeLearned(t *testing.T) {
	desk := catalogSetup(t, filepath.Join("testdata", "eval", "heldout59", "catalog.yaml"))
	if !desk.FoundByKeywords() {
		t.Fatal("heldout59's catalog is not found by its keywords")
	}
	for _, tc := range []struct {
		task, mode string
	}{
		// The rules read a question as a plan; the labels of a desk's
		// catalogs call one that asks whether something was done right
		// a review.
		{"Did the refund for booking 4471 actually go through, and was it the right amount?", "review"},
		{"Can you book Mrs Patel in for her crown prep with Dr Okafor next Tuesday at 10?", "act"},
		{"We keep running out of king sheets on Sundays. How much should we be ordering per week?", "plan"},
	} {
		mode, why, err := inferMode(desk, Request{Task: tc.task})
		if err != nil {
			t.Fatal(err)
		}
		if mode != tc.mode || !strings.HasPrefix(why, "learned ") || !strings.Contains(why, "(the rules: ") {
			t.Errorf("%q: mode %s (%s), want %s, learned", tc.task, mode, why, tc.mode)
		}
	}
	task := "Did the refund for booking 4471 actually go through, and was it the right amount?"
	for name, req := range map[string]Request{
		"given":       {Task: task, Mode: "act"},
		"interactive": {Task: task, Interactive: true},
		"git changes": {Task: task, Context: &untrusted.Context{Git: &untrusted.Git{Changed: 2}}},
	} {
		if _, why, err := inferMode(desk, req); err != nil || strings.HasPrefix(why, "learned") {
			t.Errorf("%s: reason %q, %v: the rules decide", name, why, err)
		}
	}
	own := catalogSetup(t, filepath.Join("testdata", "eval", "heldout59", "catalog.yaml"))
	own.ModeSpecs = maps.Clone(own.ModeSpecs)
	own.ModeSpecs["review"] = ModeSpec{Keywords: []string{"go through"}}
	if mode, why, err := inferMode(own, Request{Task: task}); err != nil || mode != "review" || why != `keyword "go through"` {
		t.Errorf("a setup's own mode keywords: %s (%s), %v; want review by its keyword", mode, why, err)
	}
	if _, why, err := inferMode(evalSetup(t), Request{Task: task}); err != nil || strings.HasPrefix(why, "learned") {
		t.Errorf("a software catalog: reason %q, %v: the rules decide", why, err)
	}
}

// TestParseModeModel holds the model file's errors, each naming its line,
// and that the built-in model reads and writes back byte for byte.
func TestParseModeModel(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{"bias\t1\t2\n", "m.tsv:1: 2 weights: want 3"},
		{"# c\nbias\t1\tx\t2\n", `m.tsv:2: weight 2, "x": want a finite number`},
		{"bias\t1\tNaN\t2\n", `m.tsv:1: weight 2, "NaN": want a finite number`},
		{"a\t1\t2\t3\na\t1\t2\t3\n", `m.tsv:2: feature "a" is listed twice`},
		{"\t1\t2\t3\n", "m.tsv:1: 2 weights: want 3"},
		{"a b\n", "m.tsv:1: want a feature and its three weights"},
		{"# nothing\n", "m.tsv: no feature"},
	} {
		_, err := parseModeModel("m.tsv", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.data, err, tc.want)
		}
	}
	data, err := defaults.ReadFile(modeModelFile)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseModeModel(modeModelFile, data)
	if err != nil {
		t.Fatal(err)
	}
	if got := m.marshal(); string(got) != string(data) {
		t.Error("the built-in mode model, read and written back, is not the same file")
	}
}

// FuzzParseModeModel reads any bytes as a mode model: an error names
// its line; a model read writes back as a file that reads as the same
// model and infers a mode for any task.
func FuzzParseModeModel(f *testing.F) {
	data, err := defaults.ReadFile(modeModelFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:min(len(data), 2000)], "Can you book Mrs Patel in for Tuesday at 10?")
	f.Add([]byte("bias\t1\t2\t3\nw:refund\t-0\t1e3\t.5\n"), "退款了吗？")
	f.Add([]byte("#x\n\n a b \t 1 \t2\t3\r\n"), "")
	f.Add([]byte("x\xff\t1\t2\t3\n"), "проверь счёт")
	f.Fuzz(func(t *testing.T, b []byte, task string) {
		m, err := parseModeModel("f.tsv", b)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.tsv") {
				t.Fatalf("error %q names no file", err)
			}
			return
		}
		again, err := parseModeModel("g.tsv", m.marshal())
		if err != nil || !maps.Equal(m.w, again.w) {
			t.Fatalf("written out and read again: %v, %v; want %v", again, err, m.w)
		}
		mode, p := m.infer(modeFeatures(task, "plan", "a question"))
		if mode == "" || !(p > 0 && p <= 1) {
			t.Fatalf("infer: %q %v", mode, p)
		}
	})
}

// BenchmarkInferModeLearned infers the mode of six desk tasks in six
// languages for a catalog found by its keywords (eval/heldout59's): the
// rules, then the mode model over the task's terms. Target: < 250 µs a
// task, as the rules alone.
func BenchmarkInferModeLearned(b *testing.B) {
	if _, err := builtinModeModel(); err != nil {
		b.Fatal(err)
	}
	benchmarkInferMode(b, catalogSetup(b, filepath.Join("testdata", "eval", "heldout59", "catalog.yaml")), "learned")
}

// BenchmarkParseModeModel reads the built-in mode model, as a process
// does once, the first time a catalog found by its keywords infers a
// mode. Target: < 2 ms.
func BenchmarkParseModeModel(b *testing.B) {
	data, err := defaults.ReadFile(modeModelFile)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseModeModel(modeModelFile, data); err != nil {
			b.Fatal(err)
		}
	}
}

package layered

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/racetest"
)

// ownCatalogDir is a setup directory holding eval/heldout32's catalog, a
// catalog the built-in ranker was never trained on.
func ownCatalogDir(t testing.TB) string {
	t.Helper()
	catalog, err := os.ReadFile(filepath.Join("testdata", "eval", "heldout32", "catalog.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "layered.yaml"), catalog, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestFitRanker: fitted to the tasks of a catalog it was never trained
// on, the ranker picks better on held-apart folds of those tasks than
// the built-in one (at the end of the round that brought phrasal verbs
// into the glossary: 0.901, 0.865 against 0.875, 0.872); a setup with the fitted ranker.json selects with
// it; the file is the same bytes for the same tasks.
func TestFitRanker(t *testing.T) {
	if testing.Short() || racetest.Enabled {
		t.Skip("fits a ranker five times over: skipped with -short and under -race (.ci/run runs it without)")
	}
	dir := ownCatalogDir(t)
	s, err := ParseSetup(dirReader(dir))
	if err != nil {
		t.Fatal(err)
	}
	cases := readCases(t, filepath.Join("testdata", "eval", "heldout32", "selection.jsonl"))
	a := &Assembler{Setup: s}
	model, builtin, fitted, err := a.FitRanker(context.Background(), cases)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("held-apart folds of %d tasks: built-in %.3f %.3f, fitted %.3f %.3f", len(cases), builtin.MeanPrecision, builtin.MeanRecall, fitted.MeanPrecision, fitted.MeanRecall)
	// Better: more precision and recall together, and neither less by
	// more than one task's worth (one task of 64 moves a mean by up to
	// 0.016).
	task := 1 / float64(len(cases))
	if fitted.MeanPrecision+fitted.MeanRecall <= builtin.MeanPrecision+builtin.MeanRecall || fitted.MeanPrecision < builtin.MeanPrecision-task || fitted.MeanRecall < builtin.MeanRecall-task {
		t.Errorf("fitted %.3f %.3f on held-apart folds, want more than the built-in %.3f %.3f", fitted.MeanPrecision, fitted.MeanRecall, builtin.MeanPrecision, builtin.MeanRecall)
	}
	if len(builtin.Cases) != len(cases) || len(fitted.Cases) != len(cases) {
		t.Errorf("%d and %d results, want one a task (%d)", len(builtin.Cases), len(fitted.Cases), len(cases))
	}
	again, _, _, err := a.FitRanker(context.Background(), cases)
	if err != nil || string(again) != string(model) {
		t.Errorf("fitting again gave other bytes (%v)", err)
	}
	before, err := a.Evaluate(context.Background(), cases, 3)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, rankerFile), model, 0o644); err != nil {
		t.Fatal(err)
	}
	fs, err := ParseSetup(dirReader(dir))
	if err != nil {
		t.Fatal(err)
	}
	after, err := (&Assembler{Setup: fs}).Evaluate(context.Background(), cases, 3)
	if err != nil {
		t.Fatal(err)
	}
	if after.MeanRecall <= before.MeanRecall {
		t.Errorf("with ranker.json, recall@3 %.3f on the tasks it was fitted to, want more than the built-in ranker's %.3f", after.MeanRecall, before.MeanRecall)
	}
}

func TestFitRankerRejects(t *testing.T) {
	s, err := ParseSetup(dirReader(ownCatalogDir(t)))
	if err != nil {
		t.Fatal(err)
	}
	a := &Assembler{Setup: s}
	ten := func(edit func([]EvalCase)) []EvalCase {
		var cs []EvalCase
		for range 10 {
			cs = append(cs, EvalCase{ID: "c", Task: "run the tests", Mode: "act", Want: []string{s.Tools[0].Name}})
		}
		if edit != nil {
			edit(cs)
		}
		return cs
	}
	for _, tc := range []struct {
		name  string
		cases []EvalCase
		want  string
	}{
		{"few", ten(nil)[:3], "give at least 10"},
		{"unknown tool", ten(func(cs []EvalCase) { cs[4].ID, cs[4].Want = "c5", []string{"no_such_tool"} }), `case c5 wants "no_such_tool", which is no tool`},
		{"no tool", ten(func(cs []EvalCase) { cs[2].Want = nil }), "wants no tool"},
		{"bad mode", ten(func(cs []EvalCase) { cs[1].Mode = "build" }), "case c"},
	} {
		_, _, _, err := a.FitRanker(context.Background(), tc.cases)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
	if _, _, _, err := (&Assembler{}).FitRanker(context.Background(), ten(nil)); err == nil {
		t.Error("an Assembler without a setup fitted a ranker")
	}
}

// TestRankerFileRejects: a broken ranker.json is an error naming it and
// what to do, not a silent fall back to the built-in ranker.
func TestRankerFileRejects(t *testing.T) {
	dir := ownCatalogDir(t)
	if err := os.WriteFile(filepath.Join(dir, rankerFile), []byte(`{"bias": 1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ParseSetup(dirReader(dir))
	if err == nil || !strings.Contains(err.Error(), rankerFile) || !strings.Contains(err.Error(), "tessera layered fit") {
		t.Fatalf("error %v, want one naming %s and how to fix it", err, rankerFile)
	}
}

// FuzzFitRanker: any labelled tasks are fitted or refused with an
// error, never a panic, and a model fitted is one ParseSetup reads.
func FuzzFitRanker(f *testing.F) {
	f.Add("Fix the failing unit tests", "act", "Corrige o teste que falha", "")
	f.Add("", "plan", "\x00\xff", "review")
	f.Add("重启 k8s 的 pod，然后看看日志", "", "ログを見て", "auto")
	s, err := ParseSetup(dirReader(ownCatalogDir(f)))
	if err != nil {
		f.Fatal(err)
	}
	a := &Assembler{Setup: s}
	f.Fuzz(func(t *testing.T, task1, mode1, task2, mode2 string) {
		var cases []EvalCase
		for i := range 10 {
			c := EvalCase{Task: task1, Mode: mode1, Want: []string{s.Tools[i%len(s.Tools)].Name}}
			if i%2 == 1 {
				c.Task, c.Mode = task2, mode2
			}
			cases = append(cases, c)
		}
		model, _, _, err := a.FitRanker(context.Background(), cases)
		if err != nil {
			return
		}
		if _, err := parseRankModel(model); err != nil {
			t.Fatalf("a fitted model does not read back: %v", err)
		}
	})
}

// TestRankerEmbedderSpace: a ranker ranks only with the similarities it
// learned from. Selecting with a model's embeddings, the built-in ranker
// is off and says why, and the rules' picks stand; fitted with that
// model, the ranker records it and ranks with it; that fitted ranker is
// off, and says why, when the lexical embedder selects.
func TestRankerEmbedderSpace(t *testing.T) {
	if testing.Short() || racetest.Enabled {
		t.Skip("fits a ranker five times over: skipped with -short and under -race (.ci/run runs it without)")
	}
	ctx := context.Background()
	dir := ownCatalogDir(t)
	s, err := ParseSetup(dirReader(dir))
	if err != nil {
		t.Fatal(err)
	}
	cases := readCases(t, filepath.Join("testdata", "eval", "heldout32", "selection.jsonl"))
	task := Request{Task: cases[0].Task, Mode: cases[0].Mode}
	learned := func(sel *Selection) bool {
		return slices.ContainsFunc(sel.Tools, func(p Pick) bool { return strings.HasPrefix(p.Why, "learned") })
	}
	model := &countingEmbedder{}
	sel, err := (&Assembler{Setup: s, Embedder: model}).Select(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sel.Metrics.Ranker, "off: the ranker learned from the lexical embedder's similarities, and this selection's are counting/256's") || learned(sel) {
		t.Errorf("built-in ranker with a model's embeddings: metrics.ranker %q, picks %+v: want it off, saying why, and the rules' picks", sel.Metrics.Ranker, sel.Tools)
	}
	data, _, _, err := (&Assembler{Setup: s, Embedder: model}).FitRanker(ctx, cases)
	if err != nil {
		t.Fatal(err)
	}
	m, err := parseRankModel(data)
	if err != nil || m.Embedder != "counting/256" {
		t.Fatalf("fitted with counting/256: embedder %q (%v)", m.Embedder, err)
	}
	if err := os.WriteFile(filepath.Join(dir, rankerFile), data, 0o644); err != nil {
		t.Fatal(err)
	}
	fitted, err := ParseSetup(dirReader(dir))
	if err != nil {
		t.Fatal(err)
	}
	sel, err = (&Assembler{Setup: fitted, Embedder: model}).Select(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	if sel.Metrics.Ranker != "" || !learned(sel) {
		t.Errorf("fitted ranker with its own embedder: metrics.ranker %q, picks %+v: want it on", sel.Metrics.Ranker, sel.Tools)
	}
	sel, err = (&Assembler{Setup: fitted}).Select(ctx, task)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(sel.Metrics.Ranker, "off: ranker.json was fitted to counting/256's similarities, and this selection's are hash-v1/256's") || learned(sel) {
		t.Errorf("ranker fitted to a model, lexical selection: metrics.ranker %q, picks %+v: want it off, saying why", sel.Metrics.Ranker, sel.Tools)
	}
}

package layered

import (
	"path/filepath"
	"slices"
	"testing"
)

// modeSet is a catalog's labelled tasks as the mode model sees them.
type modeSet struct {
	set      string
	examples []modeExample
	rules    []int // the mode the rules infer for each, in modeOrder
}

// modeSets reads the labelled tasks of files (those of catalogs found by
// their keywords), each with its catalog's rules, by catalog.
func modeSets(t *testing.T, files []rankFile) []modeSet {
	var out []modeSet
	setups := map[string]*Setup{}
	for _, f := range files {
		s := setups[f.set]
		if s == nil {
			s = catalogSetup(t, filepath.Join("testdata", "eval", f.set, "catalog.yaml"))
			setups[f.set] = s
		}
		if len(out) == 0 || out[len(out)-1].set != f.set {
			out = append(out, modeSet{set: f.set})
		}
		ms := &out[len(out)-1]
		for _, c := range readCases(t, f.path()) {
			want := slices.Index(modeOrder[:], c.Mode)
			if want < 0 {
				continue
			}
			mode, why, err := ruleModeOf(s, Request{Task: c.Task}, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			ms.examples = append(ms.examples, modeExample{modeFeatures(c.Task, mode, why), want})
			ms.rules = append(ms.rules, slices.Index(modeOrder[:], mode))
		}
	}
	return out
}

// examplesOf are the examples of sets.
func examplesOf(sets []modeSet) []modeExample {
	var out []modeExample
	for _, s := range sets {
		out = append(out, s.examples...)
	}
	return out
}

// TestModeModelTrained checks that defaults/mode-keywords.tsv is what
// training on the labelled tasks of the catalogs found by their keywords
// gives (the keyword ranker's sets, keywordSets); -update writes it.
func TestModeModelTrained(t *testing.T) {
	skipTraining(t)
	m := trainModeModel(examplesOf(modeSets(t, keywordSets(t))), modeEpochs, modeRate, modeL2, modeMinCount)
	checkModelFile(t, modeModelFile, m.marshal(), "TestModeModelTrained")
}

// agreement counts the tasks of sets whose label's mode m infers, and
// those whose mode the rules infer, of n.
func agreement(m *modeModel, sets []modeSet) (learned, rules, n int) {
	for _, s := range sets {
		for j, e := range s.examples {
			if mode, _ := m.infer(e.features); mode == modeOrder[e.mode] {
				learned++
			}
			if s.rules[j] == e.mode {
				rules++
			}
			n++
		}
	}
	return learned, rules, n
}

// TestModeModelCatalogs holds what the mode model does on catalogs it
// was not trained on: the catalogs found by their keywords, left out of
// training in eighths, each eighth's modes inferred by a model trained on
// the others. The model must agree with the labels more often than the
// rules do on the same tasks; and on heldout86 to heldout89, which no
// model is trained on, the built-in one too.
func TestModeModelCatalogs(t *testing.T) {
	skipTraining(t)
	sets := modeSets(t, keywordSets(t))
	const folds = 8
	var learned, rules, n int
	for f := range folds {
		var train []modeSet
		for i, s := range sets {
			if i%folds != f {
				train = append(train, s)
			}
		}
		var test []modeSet
		for i, s := range sets {
			if i%folds == f {
				test = append(test, s)
			}
		}
		m := trainModeModel(examplesOf(train), modeEpochs, modeRate, modeL2, modeMinCount)
		l, r, k := agreement(m, test)
		learned, rules, n = learned+l, rules+r, n+k
	}
	t.Logf("%d catalogs, %d tasks, left out in eighths: the mode inferred is the label's for %.3f of them by the rules, %.3f by the model", len(sets), n, float64(rules)/float64(n), float64(learned)/float64(n))
	if learned <= rules {
		t.Errorf("the mode model agrees with the labels for %d of %d tasks it was not trained on, the rules for %d", learned, n, rules)
	}
	m, err := builtinModeModel()
	if err != nil {
		t.Fatal(err)
	}
	var held []rankFile
	for _, s := range []string{"heldout86", "heldout87", "heldout88", "heldout89"} {
		held = append(held, rankFile{s, "selection.jsonl", true})
	}
	learned, rules, n = agreement(m, modeSets(t, held))
	t.Logf("heldout86 to heldout89, %d tasks: the rules %d, the built-in model %d", n, rules, learned)
	if learned <= rules {
		t.Errorf("heldout86 to heldout89: the built-in mode model agrees with the labels for %d of %d tasks, the rules for %d", learned, n, rules)
	}
}

package layered

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestParseRankModelRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{`, "not a ranker's JSON"},
		{`{"dense": {}}`, `no weight for "similarity"`},
		{`{"dense": {"similarity": 1, "share": 1, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1, "words": 1, "words_relative": 1, "other": 1, "more": 1}}`, `"more" is no feature of the ranker's`},
		{`{"dense": {"similarity": 1, "share": 1, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1, "words": 1, "words_relative": 1}, "pairs": {"edit": 1}}`, `"edit" is not a task's side and a tool's side`},
	} {
		_, err := parseRankModel([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.in, err, tc.want)
		}
	}
	if _, err := defaultRanker(); err != nil {
		t.Fatalf("the built-in ranker: %v", err)
	}
}

// TestRankModelBefore reads a ranker.json fitted before the headword
// features were added (see rankDenseSince): it loads, and ranks as it
// did, those features weighing nothing.
func TestRankModelBefore(t *testing.T) {
	m, err := parseRankModel([]byte(`{"bias": -1, "dense": {"similarity": 1, "share": 2, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1, "words": 1, "words_relative": 1}}`))
	if err != nil {
		t.Fatalf("a model of the nine older features: %v", err)
	}
	r := newToolRanker(m, []Capability{{Name: "t"}})
	dense := make([]float64, len(rankDense))
	dense[1] = 0.5
	before := r.z(0, dense, nil, nil, "act")
	for _, d := range rankDenseSince {
		dense[slices.Index(rankDense, d)] = 1
	}
	if after := r.z(0, dense, nil, nil, "act"); after != before || before != 0 {
		t.Errorf("log-odds %v with the headword features set, %v without, want 0 both", after, before)
	}
}

// FuzzParseRankModel checks that a ranker model is read or refused with
// an error, never a panic, and that one read lays out for any catalog.
func FuzzParseRankModel(f *testing.F) {
	data, err := defaults.ReadFile("defaults/ranker.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:min(len(data), 600)])
	f.Add([]byte(`{"bias": 1, "dense": {"similarity": 1, "share": 1, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1, "words": 1, "words_relative": 1}, "pairs": {"edit|test": 1, "mode:act|~edit": -1}}`))
	f.Add([]byte(`{"bias": 1, "dense": {"similarity": 1, "share": 1, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1, "words": 1, "words_relative": 1}, "pairs": {"h:money|n:refun": 2, "h:|n:x": 1}}`))
	caps := []Capability{{Name: "t", concepts: []string{"test", "edit"}, major: []string{"test"}}, {Name: "issue_refund"}}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseRankModel(b)
		if err != nil {
			return
		}
		r := newToolRanker(m, caps)
		for i := range caps {
			_ = r.z(i, make([]float64, len(rankDense)), []string{"edit"}, []string{"money", ""}, "act")
		}
	})
}

// TestRankerHeadPairs checks the pairs of a task's headwords and the
// words of a tool's name: their keys, as training learns them, and what
// a model's weights for them add to a tool's log-odds, and to why it was
// picked, when the task names the headword, whatever else it names.
func TestRankerHeadPairs(t *testing.T) {
	refund := Capability{Name: "issue_refund"}
	if got, want := headPairKeys([]string{"money", "late"}, &refund, nil), []string{"h:money|n:issue", "h:money|n:refun", "h:late|n:issue", "h:late|n:refun"}; !slices.Equal(got, want) {
		t.Errorf("keys %q, want %q", got, want)
	}
	if got := headPairKeys([]string{"money"}, &refund, func(k string) bool { return strings.HasSuffix(k, "refun") }); !slices.Equal(got, []string{"h:money|n:refun"}) {
		t.Errorf("keys kept %q, want the refund one alone", got)
	}
	m, err := parseRankModel([]byte(`{"bias": -1, "dense": {"similarity": 0, "share": 0, "in_mode": 0, "rule_pick": 0, "rule_position": 0, "rule_relative": 0, "base": 0, "words": 0, "words_relative": 0}, "pairs": {"h:money|n:refun": 2, "h:money|n:issue": 0.5, "h:late|n:messag": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	caps := []Capability{refund, {Name: "send_message"}, {Name: "run_report"}}
	r := newToolRanker(m, caps)
	dense := make([]float64, len(rankDense))
	for i, want := range []float64{1.5, -1, -1} {
		if got := r.z(i, dense, []string{"edit"}, []string{"money", "broken"}, "act"); got != want {
			t.Errorf("%s: log-odds %v for a task naming money, want %v", caps[i].Name, got, want)
		}
	}
	if got := r.z(0, dense, nil, nil, "act"); got != -1 {
		t.Errorf("issue_refund: log-odds %v for a task naming no headword, want the bias", got)
	}
	in := make([]rankInput, len(caps))
	for i := range in {
		in[i].dense = dense
	}
	out, passed := r.rerank(in, caps, nil, []string{"money"}, "act", nil, rankCut{min: 0.5}, 10, nil)
	if len(out) != 1 || out[0].Name != "issue_refund" || !strings.Contains(out[0].Why, "headwords with its name +2.50 (money)") {
		t.Errorf("picked %+v, want issue_refund, saying what money and its name added", out)
	}
	for _, p := range passed {
		if strings.Contains(p.Why, "headwords with its name") {
			t.Errorf("%s: why %q, want no word of pairs that add nothing", p.Name, p.Why)
		}
	}
}

// TestRankerWeakFit: beside the mode's base tools, a tool that barely
// fits the task is not picked for being the best of the rest. The
// example catalog has no branch tool: "check out a new branch" gets the
// act mode's base tools alone, and the rules alone agree.
func TestRankerWeakFit(t *testing.T) {
	for _, ranker := range []float64{defaultRankerThreshold, 0} {
		s := exampleSetup(t)
		s.Scores.Ranker = ranker
		a := &Assembler{Setup: s}
		sel, err := a.Select(context.Background(), Request{Task: "check out a new branch for the fix"})
		if err != nil {
			t.Fatal(err)
		}
		if got := picked(sel); !slices.Equal(got, []string{"read_file", "edit_file"}) {
			t.Errorf("scores.ranker %v: picked %v, want the base tools read_file and edit_file alone (passed over: %+v)", ranker, got, sel.Passed.Tools)
		}
	}
}

// TestRankerNeverSilent: when no tool reaches the threshold and the mode
// brings none, the most probable of the tools the rules score above zero
// is picked, though a tool the rules score at zero is more probable; a
// task no tool fits at all gets none, as with the rules.
func TestRankerNeverSilent(t *testing.T) {
	caps := []Capability{{Name: "prior"}, {Name: "fits"}, {Name: "other"}}
	r := &toolRanker{dense: make([]float64, len(rankDense)), base: []float64{-1, -2, -3}, mode: make([]map[string]float64, 3), concept: make([]map[string]float64, 3), none: make([]float64, 3), heads: make([]map[string]float64, 3)}
	in := func(rel ...float64) []rankInput {
		out := make([]rankInput, len(rel))
		for i, v := range rel {
			out[i].dense = make([]float64, len(rankDense))
			out[i].dense[5] = v
		}
		return out
	}
	out, passed := r.rerank(in(0, 0.4, 0), caps, nil, nil, "act", nil, rankCut{min: 0.5}, 10, nil)
	if len(out) != 1 || out[0].Name != "fits" || !strings.Contains(out[0].Why, "the best there is") {
		t.Errorf("picked %+v, want fits alone, as the best there is", out)
	}
	if len(passed) != 2 || passed[0].Name != "prior" {
		t.Errorf("passed %+v, want prior then other", passed)
	}
	if out, _ := r.rerank(in(0, 0, 0), caps, nil, nil, "act", nil, rankCut{min: 0.5}, 10, nil); len(out) != 0 {
		t.Errorf("picked %+v for a task no tool fits, want none", out)
	}
}

// TestRankerShare: a tool over scores.ranker but far less probable than
// the best is passed over, saying so, and one near the best is picked;
// with scores.ranker_share 0 both are.
func TestRankerShare(t *testing.T) {
	caps := []Capability{{Name: "best"}, {Name: "near"}, {Name: "far"}}
	// Log-odds 2, 0 and -1.2: probabilities 0.88, 0.50 and 0.23.
	r := &toolRanker{dense: make([]float64, len(rankDense)), base: []float64{2, 0, -1.2}, mode: make([]map[string]float64, 3), concept: make([]map[string]float64, 3), none: make([]float64, 3), heads: make([]map[string]float64, 3)}
	in := make([]rankInput, len(caps))
	for i := range in {
		in[i].dense = make([]float64, len(rankDense))
	}
	names := func(ps []Pick) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	out, passed := r.rerank(in, caps, nil, nil, "act", nil, rankCut{0.15, 0.3}, 10, nil)
	if got := names(out); !slices.Equal(got, []string{"best", "near"}) {
		t.Errorf("picked %v, want best and near", got)
	}
	if len(passed) != 1 || passed[0].Name != "far" || !strings.Contains(passed[0].Why, "under scores.ranker_share 0.30 of the best's 0.88") {
		t.Errorf("passed %+v, want far, under the share of the best's probability", passed)
	}
	if out, _ := r.rerank(in, caps, nil, nil, "act", nil, rankCut{0.15, 0}, 10, nil); len(out) != 3 {
		t.Errorf("scores.ranker_share 0: picked %v, want all three", names(out))
	}
}

// BenchmarkParseKeywordRanker reads the built-in keyword ranker, as a
// process does once, the first time a catalog found by its keywords is
// ranked: its weights, and its pairs grouped by the tool's side. Target:
// < 5 ms, a tenth of the 50 ms a CLI assembly may take.
func BenchmarkParseKeywordRanker(b *testing.B) {
	data, err := defaults.ReadFile("defaults/ranker-keywords.json")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := parseRankModel(data); err != nil {
			b.Fatal(err)
		}
	}
}

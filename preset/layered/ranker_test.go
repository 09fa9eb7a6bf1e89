package layered

import (
	"context"
	"slices"
	"strings"
	"testing"
)

func TestParseRankModelRejects(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{`, "ranker.json"},
		{`{"dense": {}}`, `no weight for "similarity"`},
		{`{"dense": {"similarity": 1, "share": 1, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1, "other": 1}}`, "8 weights, want 7"},
		{`{"dense": {"similarity": 1, "share": 1, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1}, "pairs": {"edit": 1}}`, `"edit" is not a task's side and a tool's side`},
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

// FuzzParseRankModel checks that a ranker model is read or refused with
// an error, never a panic, and that one read lays out for any catalog.
func FuzzParseRankModel(f *testing.F) {
	data, err := defaults.ReadFile("defaults/ranker.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data[:min(len(data), 600)])
	f.Add([]byte(`{"bias": 1, "dense": {"similarity": 1, "share": 1, "in_mode": 1, "rule_pick": 1, "rule_position": 1, "rule_relative": 1, "base": 1}, "pairs": {"edit|test": 1, "mode:act|~edit": -1}}`))
	caps := []Capability{{Name: "t", concepts: []string{"test", "edit"}, major: []string{"test"}}}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseRankModel(b)
		if err != nil {
			return
		}
		r := newToolRanker(m, caps)
		_ = r.z(0, make([]float64, len(rankDense)), []string{"edit"}, "act")
	})
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

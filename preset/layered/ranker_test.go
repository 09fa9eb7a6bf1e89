package layered

import (
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

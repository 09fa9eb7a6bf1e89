package serve

import (
	"testing"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/serve/inspector"
)

func TestFirstDifference(t *testing.T) {
	for _, c := range []struct {
		diff     string
		line     int
		old, cur string
	}{
		{unifiedDiff("a", "b", "1\n2\n3\n4\n5\n", "1\n2\n3\nfour\n5\n"), 4, "4", "four"},
		{unifiedDiff("a", "b", "x\n", "y\n"), 1, "x", "y"},
		{unifiedDiff("a", "b", "1\n2\n3\n4\n", "1\n2\n3\n4\nmore\n"), 5, "", "more"},
		{unifiedDiff("a", "b", "1\n2\n3\n4\ngone\n", "1\n2\n3\n4\n"), 5, "gone", ""},
		{unifiedDiff("a", "b", "1\n--x\n3\n", "1\n--y\n3\n"), 2, "--x", "--y"},
		{"", 0, "", ""},
	} {
		line, old, cur := firstDifference(c.diff)
		if line != c.line || old != c.old || cur != c.cur {
			t.Errorf("firstDifference(%q) = %d %q %q, want %d %q %q", c.diff, line, old, cur, c.line, c.old, c.cur)
		}
	}
}

func TestBudgetCuts(t *testing.T) {
	got := budgetCuts([]budget.SectionReport{
		{Key: "kept", Before: 10, After: 10},
		{Key: "memories", Rule: "drop", Before: 40, Dropped: true},
		{Key: "memories/m1", Before: 5, Dropped: true, DroppedWith: "memories"},
		{Key: "activity", Before: 30, After: 20, ItemsDropped: []string{"a1", "a2"}},
		{Key: "docs", Before: 50, After: 20, TruncatedTokens: 30},
	})
	want := []inspector.Cut{
		{Key: "memories", What: "dropped (drop)", Tokens: 40},
		{Key: "memories/m1", What: "dropped with memories", Tokens: 5},
		{Key: "activity", What: "items a1, a2", Tokens: 10},
		{Key: "docs", What: "truncated by 30 tokens", Tokens: 30},
	}
	if len(got) != len(want) {
		t.Fatalf("budgetCuts = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("cut %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

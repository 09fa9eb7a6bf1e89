package agent_test

import (
	"strings"
	"testing"
)

// problems returns err's lines.
func problems(err error) []string {
	if err == nil {
		return nil
	}
	return strings.Split(err.Error(), "\n")
}

func checkProblems(t *testing.T, what string, err error, want []string) {
	t.Helper()
	got := problems(err)
	if len(got) != len(want) {
		t.Fatalf("%s: %d problems, want %d:\n%s", what, len(got), len(want), strings.Join(got, "\n"))
	}
	for i := range want {
		if !strings.HasPrefix(got[i], want[i]) {
			t.Errorf("%s: problem %d:\n got %s\nwant %s…", what, i+1, got[i], want[i])
		}
	}
}

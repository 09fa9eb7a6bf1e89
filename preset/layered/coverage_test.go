package layered

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestCapabilityConcepts checks the concepts a setup reads in a tool
// the built-in concepts know, in one they do not, and in that one once
// a team's concepts name its words.
func TestCapabilityConcepts(t *testing.T) {
	catalog := `tools:
  - name: run_tests
    description: Run the test suite.
    keywords: [test, pytest]
  - name: issue_refund
    description: Give an order's money back to the original payment method.
    keywords: [refund, reembolso, money back]
skills:
  - name: write_docs
    description: Write or update the documentation.
`
	for _, tc := range []struct {
		extra string
		own   []string
	}{
		{"", nil},
		{"concepts:\n  refund: [refund, reembolso, money back]\n", []string{"refund"}},
	} {
		path := filepath.Join(t.TempDir(), "layered.yaml")
		if err := os.WriteFile(path, []byte(catalog+tc.extra), 0o644); err != nil {
			t.Fatal(err)
		}
		s := catalogSetup(t, path)
		if own, _ := s.Tools[0].Concepts(); !slices.Contains(own, "test") {
			t.Errorf("run_tests: own concepts %q, want test among them", own)
		}
		if own, _ := s.Tools[1].Concepts(); !slices.Equal(own, tc.own) {
			t.Errorf("issue_refund with %q: own concepts %q, want %q", tc.extra, own, tc.own)
		}
		own, description := s.Skills[0].Concepts()
		if !slices.Contains(append(own, description...), "docs") || slices.ContainsFunc(description, func(x string) bool { return slices.Contains(own, x) }) {
			t.Errorf("write_docs: own %q, description %q: want docs, and no concept in both", own, description)
		}
	}
	if own, description := (&Capability{Name: "x"}).Concepts(); own != nil || description != nil {
		t.Errorf("a capability of no setup: %q %q, want none", own, description)
	}
}

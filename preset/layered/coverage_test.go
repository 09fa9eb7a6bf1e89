package layered

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		// Its keywords, which no concept names, are a concept of its
		// own; once the team's concept names them, they are that.
		{"", []string{"#issue_refund"}},
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

// TestKeywordConcepts checks that a tool's keywords no concept names are
// a concept of its own, found in a task in any of their forms, so that a
// catalog for work the built-in concepts do not know picks the tool its
// keywords name; that a tool most of whose keywords some concept names
// gets none; and that a concept of the setup's own may not take a
// keyword concept's name.
func TestKeywordConcepts(t *testing.T) {
	catalog := `tools:
  - name: issue_refund
    description: Give an order's money back to the original payment method.
    keywords: [refund, reembolso, remboursement, Erstattung, 退款, возврат]
    modes: [act]
  - name: track_shipment
    description: Get the carrier's tracking status of a parcel.
    keywords: [tracking, parcel, courier, rastreio, colis, 快递]
  - name: reply_ticket
    description: Send the customer a reply on a ticket.
    keywords: [reply, answer, respond]
  - name: run_tests
    description: Run the test suite.
    keywords: [test, tests, pytest, failing]
`
	s := inlineSetup(t, catalog)
	own, _ := s.Tools[3].Concepts()
	if slices.ContainsFunc(own, func(x string) bool { return x[0] == '#' }) {
		t.Errorf("run_tests: concepts %q, want no keyword concept: the built-in ones name its keywords", own)
	}
	wantPicks(t, &Assembler{Setup: s}, []pickCase{
		{"Faz o reembolso do pedido 4411, a cliente desistiu", "act", "issue_refund"},
		{"Bitte die Erstattungen von gestern für Frau Keller prüfen und auslösen", "act", "issue_refund"},
		{"这个客户要求退款，帮他处理一下", "act", "issue_refund"},
		{"où en est le colis de la commande 88231 ?", "plan", "track_shipment"},
		{"a cliente quer o código de rastreio do pedido 5521", "plan", "track_shipment"},
	})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "layered.yaml"), []byte(catalog+"concepts:\n  \"#refund\": [refund]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ParseSetup(dirReader(dir))
	if err == nil || !strings.Contains(err.Error(), `"#refund"`) || !strings.Contains(err.Error(), "name the concept without it") {
		t.Errorf("a concept named #refund: error %v, want one naming it and what to do", err)
	}
}

package layered

import (
	"math"
	"slices"
	"testing"

	"github.com/tessera-dev/tessera/embed"
)

// lexiconCatalog is a small catalog of tools in the shape a team writes.
func lexiconCatalog() []Capability {
	return []Capability{
		{Name: "issue_tracker", Description: "Search, read, create and update Jira issues.", Keywords: []string{"jira", "ticket", "工单"}},
		{Name: "fleet_devices", Description: "Look up devices in the fleet registry with their firmware version.", Keywords: []string{"fleet", "devices", "デバイス"}},
		{Name: "read_file", Description: "Read a file of the repository."},
		{Name: "search_code", Description: "Search the repository's code for a pattern."},
	}
}

func lexMatch(l *lexicon, task string) []float64 {
	return l.match(embed.Words(task))
}

// TestLexicon: a task's words the catalog names go to the tools naming
// them, weighed by how few tools do; stems match across word forms; CJK
// words are found inside a task's text; a task naming none of the
// catalog's words gives every tool 0.
func TestLexicon(t *testing.T) {
	caps := lexiconCatalog()
	l := newLexicon(caps)
	best := func(scores []float64) string {
		i := 0
		for j, s := range scores {
			if s > scores[i] {
				i = j
			}
		}
		return caps[i].Name
	}
	for _, tc := range []struct{ task, want string }{
		{"Já existe algum ticket aberto sobre o sensor de solo?", "issue_tracker"},
		{"Which device was last seen, and where?", "fleet_devices"}, // "device" and "devices" share a stem
		{"这个问题有没有对应的工单？", "issue_tracker"},
		{"このデバイスのファームウェアは？", "fleet_devices"},
	} {
		got := lexMatch(l, tc.task)
		if b := best(got); b != tc.want {
			t.Errorf("%q: best %s (%v), want %s", tc.task, b, got, tc.want)
		}
		for i, s := range got {
			if s < 0 || s > 1 {
				t.Errorf("%q: %s scores %v, want 0 to 1", tc.task, caps[i].Name, s)
			}
		}
	}
	// "search" is named by two tools, "jira" by one: the rarer word
	// weighs more.
	got := lexMatch(l, "search jira")
	if !(got[0] > got[3]) || got[3] == 0 {
		t.Errorf("search jira: issue_tracker %v, search_code %v: want the tool naming both words ahead, the other above 0", got[0], got[3])
	}
	if got := lexMatch(l, "the weather is nice and warm"); slices.ContainsFunc(got, func(s float64) bool { return s != 0 }) {
		t.Errorf("a task naming none of the catalog's words: %v, want all 0", got)
	}
	var nilLex *lexicon
	if got := nilLex.match([]string{"ticket"}); got != nil {
		t.Errorf("nil lexicon: %v, want nil", got)
	}
}

// FuzzLexicon: for any catalog text and task, every share is a number
// from 0 to 1, and the same input gives the same shares.
func FuzzLexicon(f *testing.F) {
	f.Add("jira ticket 工单", "Search Jira issues.", "Já existe algum ticket aberto?")
	f.Add("", "", "")
	f.Add("デバイス", "devices of the fleet", "このデバイスは")
	f.Fuzz(func(t *testing.T, keywords, description, task string) {
		caps := append(lexiconCatalog(), Capability{Name: "fuzzed", Description: description, Keywords: []string{keywords}})
		l := newLexicon(caps)
		got := lexMatch(l, task)
		if len(got) != len(caps) {
			t.Fatalf("%d shares for %d tools", len(got), len(caps))
		}
		for i, s := range got {
			if math.IsNaN(s) || s < 0 || s > 1+1e-9 {
				t.Fatalf("%s: share %v", caps[i].Name, s)
			}
		}
		if again := lexMatch(newLexicon(caps), task); !slices.Equal(got, again) {
			t.Fatalf("shares %v, then %v", got, again)
		}
	})
}

// BenchmarkLexicon is the words feature of one task against the
// evaluation catalog's 23 tools, as Select works it out (target: under
// 10 µs, a tenth of a selection).
func BenchmarkLexicon(b *testing.B) {
	s := evalSetup(b)
	words := embed.Words("Já existe algum ticket aberto sobre o teste de integração que falha no CI desde ontem?")
	b.ReportAllocs()
	for b.Loop() {
		s.lexicon.match(words)
	}
}

package budget_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/budget"
	"github.com/tessera-dev/tessera/preset/canonical"
	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// TestCanonicalPreservationOrder fits design 004's own example at every
// budget from its full size down to where it no longer fits, and checks
// that parts first disappear in the design's preservation order: transcript
// messages oldest first, then the rest of the conversation state, the
// requesting user and the assistant identity; the system prompt,
// constraints, required tasks and the input are never trimmed.
func TestCanonicalPreservationOrder(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "examples", "canonical", "v2-example.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	spec, err := canonical.ParseSpec("v2-example.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	cfg := canonical.Config{}
	secs, _, err := canonical.Layout(spec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	render := func(s []prompt.Section) prompt.Prompt { return canonical.Render(s, cfg) }
	c := tokenizer.O200kBase()
	full := c.Count(render(secs).Text)

	// gone records the largest budget at which each part was missing.
	gone := map[string]int{}
	var lastKept map[string]bool
	smallest, refilled := 0, 0
	for limit := full; limit > 0; limit-- {
		res, err := budget.Fit(context.Background(), secs, render, budget.Budget{Context: limit}, budget.Options{Counter: c})
		var nd *budget.NeverDropError
		if errors.As(err, &nd) {
			smallest = limit + 1
			for _, s := range nd.Sections {
				if !slices.Contains([]string{"system-prompt", "constraints", "task", "input"}, s.Key) {
					t.Errorf("%s reported as never trimmed", s.Key)
				}
			}
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if n := c.Count(res.Prompt.Text); n > limit {
			t.Fatalf("limit %d: %d tokens", limit, n)
		}
		kept := parts(res.Sections)
		for p := range lastKept {
			if !kept[p] {
				if _, ok := gone[p]; !ok {
					gone[p] = limit
				}
			}
		}
		// A smaller part may come back at a smaller budget, in the room a
		// larger, more important one left when it went; what matters
		// is the order in which parts first go.
		for p := range kept {
			if lastKept != nil && !lastKept[p] {
				refilled++
			}
		}
		lastKept = kept
	}
	if smallest == 0 {
		t.Fatal("the example fits any budget: the test trims nothing")
	}
	order := []string{"transcript#2", "transcript#3", "transcript#4", "transcript#5", "conversation-state", "requesting-user", "identity"}
	for i, p := range order {
		at, ok := gone[p]
		if !ok {
			t.Fatalf("%s was never trimmed (trimmed: %v)", p, gone)
		}
		if i > 0 && at > gone[order[i-1]] {
			t.Errorf("%s went at budget %d, before %s (at %d)", p, at, order[i-1], gone[order[i-1]])
		}
	}
	for _, p := range []string{"system-prompt", "constraints", "task", "input"} {
		if _, ok := gone[p]; ok {
			t.Errorf("%s was trimmed", p)
		}
		if !lastKept[p] {
			t.Errorf("%s missing at the smallest budget", p)
		}
	}
	t.Logf("full %d tokens; trimmed at %v; smallest that fits %d; %d parts came back in room left at a smaller budget", full, gone, smallest, refilled)
}

// parts names what is present: each section by key, and each transcript
// message by its position in the original transcript.
func parts(secs []prompt.Section) map[string]bool {
	out := map[string]bool{}
	var walk func([]prompt.Section)
	walk = func(ss []prompt.Section) {
		for _, s := range ss {
			out[s.Key] = true
			if strings.HasSuffix(s.Key, ".transcript") {
				for _, it := range s.Items {
					out[fmt.Sprintf("transcript#%d", it.Seq)] = true
				}
			}
			walk(s.Children)
		}
	}
	walk(secs)
	return out
}

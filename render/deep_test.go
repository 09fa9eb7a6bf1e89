package render

import (
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/prompt"
)

// chain returns one top-level section with a chain of depth-1 sections
// below it, each titled and with a body of its own.
func chain(depth int) []prompt.Section {
	var s prompt.Section
	for d := depth - 1; d >= 0; d-- {
		next := prompt.Section{Key: "s" + strconv.Itoa(d), Title: "Level " + strconv.Itoa(d), Body: "body of level " + strconv.Itoa(d)}
		if d < depth-1 {
			next.Children = []prompt.Section{s}
		}
		s = next
	}
	return []prompt.Section{s}
}

// TestDeepChainSpans checks that a chain nested far deeper than
// MaxSpanDepth records spans only down to it, so that hashing reads the
// text at most MaxSpanDepth+1 times, and that the deepest span recorded
// holds the text of every section below it.
func TestDeepChainSpans(t *testing.T) {
	for _, style := range []Style{Plain, {Heading: Heading{Level: 2, Numbered: true, Deeper: true}}, {Heading: Heading{Level: 2}, Children: Bullets}} {
		p := Render(chain(2000), style)
		if got, want := len(p.Sections), MaxSpanDepth+1; got != want {
			t.Fatalf("%d spans, want %d (top level and %d below it)", got, want, MaxSpanDepth)
		}
		hashed := 0
		for _, sp := range p.Sections {
			hashed += sp.End - sp.Start
			if sp.Hash != prompt.Hash(p.Text[sp.Start:sp.End]) {
				t.Errorf("span %s: hash is not the hash of its text", sp.Key)
			}
		}
		if hashed > (MaxSpanDepth+1)*len(p.Text) {
			t.Errorf("spans cover %d bytes, over %d passes over the %d-byte text", hashed, MaxSpanDepth+1, len(p.Text))
		}
		last := p.Sections[len(p.Sections)-1]
		if want := strings.Repeat("/", MaxSpanDepth); strings.Count(last.Key, "/") != MaxSpanDepth {
			t.Errorf("deepest span key %q, want %d levels (%q)", last.Key, MaxSpanDepth, want)
		}
		if !strings.Contains(p.Text[last.Start:last.End], "body of level 1999") {
			t.Errorf("the deepest span does not hold the deepest section's text")
		}
	}
}

// BenchmarkRenderDeepChain renders a chain of 1,000 nested sections.
// Target: linear in the text, under 5 ms (the chain's text is about 40 KB).
func BenchmarkRenderDeepChain(b *testing.B) {
	secs := chain(1000)
	b.ReportAllocs()
	for b.Loop() {
		if p := Render(secs, Plain); p.Text == "" {
			b.Fatal("empty")
		}
	}
}

package engine

import (
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/guard"
	"github.com/tessera-dev/tessera/prompt"
)

// BenchmarkLastPass is the engine's last pass of redaction over a layout
// of 64 sections of 1 KB prose each (64 KB) with nothing to redact: the
// sections, then the rendered text's check. b.SetBytes makes the figure
// MB/s of prompt text.
func BenchmarkLastPass(b *testing.B) {
	body := strings.Repeat("The build reads every file under the root, checks each include, and writes the result. ", 12)[:1024]
	secs := make([]prompt.Section, 64)
	var text strings.Builder
	for i := range secs {
		secs[i] = prompt.Section{Key: "s", Title: "Section", Body: body, Items: []prompt.Item{{ID: "i", Text: "an item"}}}
		text.WriteString(body)
	}
	full := text.String()
	red := guard.Default()
	b.SetBytes(int64(len(full)))
	b.ReportAllocs()
	for b.Loop() {
		s := newScrubber(red, nil)
		if out := s.sections(secs); &out[0] != &secs[0] {
			b.Fatal("changed")
		}
		if err := s.check("p", full); err != nil {
			b.Fatal(err)
		}
	}
}

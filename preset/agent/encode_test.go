package agent

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/internal/yamldoc"
)

// wholeYAML is the task state's YAML as the encoder writes it in one
// piece.
func wholeYAML(t *testing.T, n *yaml.Node) string {
	t.Helper()
	var b strings.Builder
	if err := dumpYAML(&b, n); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// randomYAML writes a random document of mappings, lists and scalars
// (plain, quoted, multi-line, long, empty) nested up to depth.
func randomYAML(r *rand.Rand, b *strings.Builder, depth int) {
	scalars := []string{"1", "x", `"yes"`, "'a: b'", `"two\nlines"`, `"` + strings.Repeat("long words ", 12) + `"`, `""`, "~", `"- not a list"`, `"#"`, `"trailing "`}
	switch k := r.IntN(4); {
	case depth == 0 || k == 0:
		b.WriteString(scalars[r.IntN(len(scalars))])
	case k == 1:
		b.WriteString("[")
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString(", ")
			}
			randomYAML(r, b, depth-1)
		}
		b.WriteString("]")
	default:
		b.WriteString("{")
		for i := range r.IntN(5) {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(b, "k%d: ", i)
			randomYAML(r, b, depth-1)
		}
		b.WriteString("}")
	}
}

// TestWriteBlock checks that the task state written in pieces is the
// text the YAML encoder writes in one, for random documents and any size
// of piece.
func TestWriteBlock(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		var b strings.Builder
		b.WriteString("top: ")
		randomYAML(r, &b, 5)
		b.WriteString("\nlit: |\n  a\n\n  b\n")
		top, err := yamldoc.Parse("s.yaml", []byte(b.String()))
		if err != nil {
			t.Fatalf("%s: %v", b.String(), err)
		}
		plain(top, 0)
		want := wholeYAML(t, top)
		for _, chunk := range []int{1, 2, 3, 7, 50} {
			var got strings.Builder
			if err := writeBlock(&got, top, "", "", chunk); err != nil {
				t.Fatal(err)
			}
			if got.String() != want {
				t.Fatalf("document %d, pieces of %d nodes:\n%s\ngives\n%s\nwant\n%s", i, chunk, b.String(), got.String(), want)
			}
		}
	}
}

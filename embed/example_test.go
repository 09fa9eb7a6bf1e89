package embed_test

import (
	"fmt"

	"github.com/tessera-dev/tessera/embed"
)

// Rank tools by how alike their descriptions are to a task, with the
// offline lexical embedder.
func ExampleRank() {
	h := embed.Hash{}
	tools := []string{
		"git_diff: show the uncommitted changes",
		"run_tests: run the test suite",
		"http_get: fetch a web page",
	}
	var vecs []embed.Vector
	for _, t := range tools {
		vecs = append(vecs, h.Vector(t))
	}
	for _, r := range embed.Rank(h.Vector("the tests are failing, run them"), vecs, 0.2, 2) {
		fmt.Println(tools[r.Index])
	}
	// Output:
	// run_tests: run the test suite
}

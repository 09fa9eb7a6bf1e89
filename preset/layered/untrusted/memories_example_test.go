package untrusted_test

import (
	"os"
	"testing"

	"github.com/tessera-dev/tessera/preset/layered/untrusted"
)

// TestExampleMemories: the example memories file, which TestSchemas
// checks against layered-memory.schema.json, reads as a memories file,
// and its override-tagged memory is instruction-like.
func TestExampleMemories(t *testing.T) {
	const path = "../../../examples/layered/memories.jsonl"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ms, err := untrusted.ParseMemories(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 4 || ms[2].ID != "m3" || !ms[2].Instruction() || ms[0].Instruction() {
		t.Errorf("memories: %+v", ms)
	}
}

package agent_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/tessera-dev/tessera/preset/agent"
	"github.com/tessera-dev/tessera/preset/agent/reply"
)

// bigMemory returns a memory file of about size bytes, as an extractor
// writes one (indented JSON), and its number of entries.
func bigMemory(tb testing.TB, size int) ([]byte, int) {
	tb.Helper()
	types := reply.MemoryTypes()
	var entries []reply.MemoryEntry
	for i, n := 0, 0; n < size; i++ {
		e := reply.MemoryEntry{
			ID:          fmt.Sprintf("m%06d", i),
			Type:        types[i%len(types)],
			Summary:     fmt.Sprintf("Finding %d: slug.py line %d uses re.sub with a pattern that needs a str argument.", i, 10+i%900),
			Detail:      fmt.Sprintf("def slugify(title: str, max_length: int = 60) -> str:\n    # \"%d\" checked with mypy --strict\n    ...", i),
			Tags:        []string{"slugify", "typing", fmt.Sprintf("line-%d", i%900)},
			RelevanceTo: []string{[]string{"add-type-hints", "run-mypy", "run-tests"}[i%3]},
			Subtask:     "add-type-hints",
		}
		entries = append(entries, e)
		n += 420 // about one indented entry
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	return data, len(entries)
}

// BenchmarkReadMemory reads a memory file (indented JSON) with
// ParseMemory: "json" 15 MB (some 36,000 entries) as a .json file,
// through the JSON front end, item by item; "yaml" 2 MB of the same kind
// named .yaml, the path every JSON file took before (the YAML parser,
// then the decoder), which the YAML layer's value bound now keeps to
// files of that order. MB/s is of the file; B/op is every byte
// allocated, the file's text included.
func BenchmarkReadMemory(b *testing.B) {
	for _, tc := range []struct {
		name string
		size int
	}{{"memory.json", 15 << 20}, {"memory.yaml", 2 << 20}} {
		data, n := bigMemory(b, tc.size)
		b.Run(tc.name[len("memory."):], func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				out, err := agent.ParseMemory(tc.name, data)
				if err != nil || len(out) != n {
					b.Fatalf("%d entries of %d: %v", len(out), n, err)
				}
			}
		})
	}
}

package output

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// allocated returns the bytes f allocates, run once.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// hostileReplies are 2 MiB replies built to cost the most per byte.
func hostileReplies() map[string][]byte {
	const size = 2 << 20
	return map[string][]byte{
		"array":    hostileArray(size),
		"deep":     hostileDeep(size),
		"open":     bytes.Repeat([]byte("{"), size),
		"fenced":   append(append([]byte("```json\n"), hostileArray(size)...), "\n```\n"...),
		"strings":  []byte(`{"x": [` + strings.Repeat(`"a\n",`, size/6) + `"a"]}`),
		"comments": []byte(`{"x": [` + strings.Repeat(`1,/**/`, size/6) + `1]}`),
	}
}

// Issue 19: the memory of reading a reply is bounded by 16 times the
// reply (plus a constant for Spec.Parse, whose tree holds at most
// maxValues values): a hostile reply is parsed or refused within it.
func TestHostileReplyMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 2 MiB replies")
	}
	if raceEnabled {
		t.Skip("measures allocations in one goroutine, where the race detector has nothing to find: run without -race (.ci/run does)")
	}
	for name, reply := range hostileReplies() {
		limit := uint64(16 * len(reply))
		open := reply[bytes.IndexAny(reply, "{[")]
		if got := allocated(func() { Extract(reply, open) }); got > limit {
			t.Errorf("%s: Extract allocated %d bytes for a reply of %d, over %d", name, got, len(reply), limit)
		}
		for _, sp := range []Spec{{}, {Container: Array}, {Tolerant: true}, {Container: Array, Tolerant: true}} {
			var err error
			got := allocated(func() { _, err = sp.Parse(reply) })
			if got > limit {
				t.Errorf("%s, %v tolerant=%v: Spec.Parse allocated %d bytes for a reply of %d, over %d (err: %v)", name, sp.Container, sp.Tolerant, got, len(reply), limit, err)
			}
		}
	}
}

// A reply holding more values than maxValues is refused, naming the
// bound and what to do.
func TestParseTooManyValues(t *testing.T) {
	reply := hostileArray(2 << 20)
	_, err := (&Spec{}).Parse(reply)
	if err == nil {
		t.Fatal("a reply of a million values is read")
	}
	for _, want := range []string{"more than 132768 JSON values", "100000 plus one for every 64 bytes", "ask the model for a shorter answer"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the error %q does not say %q", err, want)
		}
	}
	// Within the bound, the same shape reads.
	small := hostileArray(64 << 10)
	if _, err := (&Spec{}).Parse(small); err != nil {
		t.Errorf("a reply of 32,000 values: %v", err)
	}
	if data, off, ok := Extract(reply, '{'); !ok || off != 0 || len(data) != len(reply) {
		t.Errorf("Extract of a million values: ok %v, offset %d, %d bytes of %d", ok, off, len(data), len(reply))
	}
}

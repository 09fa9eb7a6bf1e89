package hf

import (
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
)

// TestCountMemoryBounded checks that counting keeps no memory that grows
// with the text: the word cache is in fixed arrays, the tables of whole
// tokens and of characters' parts are sized by the vocabulary when it is
// loaded, so after a megabyte of text in many scripts the live heap is
// within a few megabytes of what it was.
func TestCountMemoryBounded(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("measures the live heap; slow under the race detector")
	}
	rng := rand.New(rand.NewPCG(5, 6))
	var b strings.Builder
	for b.Len() < 1<<20 {
		switch rng.IntN(5) {
		case 0:
			b.WriteString(" word")
		case 1:
			b.WriteRune(0x4E00 + rng.Int32N(0x5000))
		case 2:
			b.WriteRune(0x1F300 + rng.Int32N(0x300))
		case 3:
			b.WriteRune(0x400 + rng.Int32N(0x100))
		default:
			b.WriteRune(rng.Int32N(0x30000))
		}
	}
	text := b.String()
	for _, m := range []string{"llama3", "gemma3"} {
		tk := testTokenizer(t, m)
		tk.Count("warm up")
		before := liveHeap()
		tk.Count(text)
		tk.Encode(text[:1<<16])
		if grew := int64(liveHeap()) - int64(before); grew > 4<<20 {
			t.Errorf("%s: the live heap grew by %d bytes counting %d bytes", m, grew, len(text))
		}
		runtime.KeepAlive(tk)
	}
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

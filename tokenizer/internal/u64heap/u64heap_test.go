package u64heap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHeapOrder: values pushed, or ordered by Init, pop smallest first.
func TestHeapOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for n := range 200 {
		vals := make([]uint64, n)
		for i := range vals {
			vals[i] = r.Uint64N(50)
		}
		var h []uint64
		for _, v := range vals {
			h = Push(h, v)
		}
		init := slices.Clone(vals)
		Init(init)
		want := slices.Sorted(slices.Values(vals))
		for _, heap := range [][]uint64{h, init} {
			var got []uint64
			for len(heap) > 0 {
				got = append(got, heap[0])
				heap = Pop(heap)
			}
			if !slices.Equal(got, want) {
				t.Fatalf("n=%d: popped %v, want %v", n, got, want)
			}
		}
	}
}

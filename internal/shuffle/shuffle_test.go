package shuffle

import (
	"slices"
	"testing"
)

func TestOrder(t *testing.T) {
	for _, n := range []int{0, 1, 2, 10, 1000} {
		got := Order(n)
		sorted := slices.Sorted(slices.Values(got))
		for i, v := range sorted {
			if v != i {
				t.Fatalf("Order(%d) is not a permutation of 0..%d: %v", n, n-1, got)
			}
		}
		if len(got) != n {
			t.Fatalf("Order(%d) has %d items", n, len(got))
		}
		if !slices.Equal(got, Order(n)) {
			t.Fatalf("Order(%d) differs between calls", n)
		}
	}
	// The trained weights shipped were made in this order: changing it
	// changes every model trained with it (run their -update tests).
	if got, want := Order(5), []int{0, 4, 1, 3, 2}; !slices.Equal(got, want) {
		t.Errorf("Order(5) = %v, want %v", got, want)
	}
}

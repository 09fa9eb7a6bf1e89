// Package shuffle gives fixed orders of items that look random: the
// same on every run and every machine, for the training of the
// project's learned weights (the injection detector's model, the layered
// preset's ranker), which must give the same bytes each time they are
// made again.
package shuffle

// Order is a fixed permutation of 0..n-1: a Fisher–Yates shuffle driven
// by a xorshift generator from a fixed seed.
func Order(n int) []int {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	x := uint64(88172645463325252)
	for i := n - 1; i > 0; i-- {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		j := int(x % uint64(i+1))
		idx[i], idx[j] = idx[j], idx[i]
	}
	return idx
}

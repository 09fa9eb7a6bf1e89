// Package u64heap is a min-heap of uint64 values held in a slice, for the
// BPE merges of package tokenizer and its subpackages: 4-ary (half the
// depth of a binary heap, and the four children of a node share a cache
// line), growing by doubling. The least value is h[0].
package u64heap

import "slices"

// The heap is 4-ary: half the depth of a binary heap, and the four
// children of a node share a cache line.

// Init orders h as a heap.
func Init(h []uint64) {
	if len(h) < 2 {
		return
	}
	for i := (len(h) - 2) / 4; i >= 0; i-- {
		down(h, i)
	}
}

// Push adds v to the heap h and returns it.
func Push(h []uint64, v uint64) []uint64 {
	if len(h) == cap(h) {
		// Double: append grows a large slice by a quarter, and the
		// copies left behind would add up to four times the heap.
		h = slices.Grow(h, max(len(h), 64))
	}
	h = append(h, v)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 4
		if h[p] <= v {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = v
	return h
}

// Pop removes the least value, h[0], from the heap h and returns it.
func Pop(h []uint64) []uint64 {
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	if last > 0 {
		down(h, 0)
	}
	return h
}

func down(h []uint64, i int) {
	n := len(h)
	v := h[i]
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		// The smallest of up to four children.
		m := c
		end := min(c+4, n)
		for k := c + 1; k < end; k++ {
			if h[k] < h[m] {
				m = k
			}
		}
		if h[m] >= v {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = v
}

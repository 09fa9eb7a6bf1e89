package hf

import (
	"fmt"
	"slices"
	"sync"
	"testing"
)

// cacheIDsOf gives each test piece ids that depend on it alone, so that
// any hit can be checked: up to cacheMaxIDs ids, some near 1<<24.
func cacheIDsOf(piece string) []int32 {
	h := uint32(2166136261)
	for i := 0; i < len(piece); i++ {
		h = (h ^ uint32(piece[i])) * 16777619
	}
	ids := make([]int32, h%(cacheMaxIDs+1))
	for j := range ids {
		h = h*1664525 + 1013904223
		ids[j] = int32(h >> 8) // 24 bits
	}
	return ids
}

func cachePiece(i int) string {
	s := fmt.Sprintf("%d, a piece of the test, cut short", i*7919)
	return s[:3+i%(cacheMaxPiece-2)]
}

// TestWordCache checks that a stored piece is found with its ids, of
// every length and number of ids, that a reset forgets everything, and
// that what does not fit is not stored.
func TestWordCache(t *testing.T) {
	c := newWordCache()
	for n := 3; n <= cacheMaxPiece; n++ {
		piece := string(make([]byte, n)) // zeros: the padding must not match
		for j := range n {
			piece = piece[:j] + string(rune('a'+(n+j)%26)) + piece[j+1:]
		}
		for k := 0; k <= cacheMaxIDs; k++ {
			ids := make([]int32, k)
			for j := range ids {
				ids[j] = int32((1<<24 - 1) - j*n*k)
			}
			c.put(piece, ids)
			got, ok := c.get(piece, []int32{-1})
			if !ok || !slices.Equal(got, append([]int32{-1}, ids...)) {
				t.Fatalf("%q with %d ids: got %v, %v; want %v", piece, k, got, ok, ids)
			}
			if _, ok := c.get(piece[:n-1]+"\x00", nil); ok {
				t.Fatalf("%q: found a piece ending in a zero byte instead", piece)
			}
		}
	}
	c.put("abc", []int32{1})
	c.reset()
	if _, ok := c.get("abc", nil); ok {
		t.Error("found a piece after reset")
	}
	long := string(make([]byte, cacheMaxPiece+1))
	c.put(long, []int32{1})
	c.put("many", make([]int32, cacheMaxIDs+1))
	for _, p := range []string{long, "many"} {
		if _, ok := c.get(p, nil); ok {
			t.Errorf("%.8q: stored though it does not fit", p)
		}
	}
}

// TestWordCacheConcurrent has goroutines put and get far more pieces
// than the cache has slots, so that they overwrite each other's slots
// while others read them: every hit must give the piece's own ids. Run
// it with -race as well.
func TestWordCacheConcurrent(t *testing.T) {
	c := newWordCache()
	pieces := make([]string, 4*cacheSlots)
	want := make([][]int32, len(pieces))
	for i := range pieces {
		pieces[i] = cachePiece(i)
		want[i] = cacheIDsOf(pieces[i])
	}
	ops := 50_000
	if raceEnabled || testing.Short() {
		ops = 5_000
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []int32
			for i := range ops {
				k := (i*(g+1)*31 + g) % len(pieces)
				var ok bool
				if buf, ok = c.get(pieces[k], buf[:0]); ok {
					if !slices.Equal(buf, want[k]) {
						errs <- fmt.Sprintf("%q: got %v, want %v", pieces[k], buf, want[k])
						return
					}
					continue
				}
				c.put(pieces[k], want[k])
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestCountConcurrent counts and encodes texts of the corpus from many
// goroutines with one tokenizer, whose word cache, table of whole tokens
// and scratch space they share, and checks the ids against one
// goroutine's.
func TestCountConcurrent(t *testing.T) {
	m := "qwen3"
	if lightRun() {
		m = "deepseek_v3"
	}
	tk := testTokenizer(t, m)
	var texts []string
	for i, c := range corpus(t) {
		if i%(8*sampleEvery()) == 0 {
			texts = append(texts, c.Text)
		}
	}
	fresh := *tk
	fresh.cache, fresh.whole = newWordCache(), newWholeTokens(len(tk.vocab))
	want := make([][]int, len(texts))
	for i, s := range texts {
		want[i] = fresh.Encode(s)
	}
	fresh.cache, fresh.whole = newWordCache(), newWholeTokens(len(tk.vocab))
	var wg sync.WaitGroup
	errs := make(chan string, 4)
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range texts {
				i := (k*(g+1) + g) % len(texts)
				if n := fresh.Count(texts[i]); n != len(want[i]) {
					errs <- fmt.Sprintf("text %d: count %d, want %d", i, n, len(want[i]))
					return
				}
				if got := fresh.Encode(texts[i]); !slices.Equal(got, want[i]) {
					errs <- fmt.Sprintf("text %d: ids differ", i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

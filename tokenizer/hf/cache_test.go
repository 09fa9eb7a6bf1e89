package hf

import (
	"fmt"
	"runtime"
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
// every length and number of ids, that a reset forgets everything, that
// what does not fit is not stored, and that slots used for another
// cache answer nothing for this one.
func TestWordCache(t *testing.T) {
	c := newWordCache()
	w := new(wordSlots)
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
			w.put(c, piece, ids)
			got, ok := w.get(c, piece, []int32{-1})
			if !ok || !slices.Equal(got, append([]int32{-1}, ids...)) {
				t.Fatalf("%q with %d ids: got %v, %v; want %v", piece, k, got, ok, ids)
			}
			if _, ok := w.get(c, piece[:n-1]+"\x00", nil); ok {
				t.Fatalf("%q: found a piece ending in a zero byte instead", piece)
			}
		}
	}
	w.put(c, "abc", []int32{1})
	c.reset()
	if _, ok := w.get(c, "abc", nil); ok {
		t.Error("found a piece after reset")
	}
	long := string(make([]byte, cacheMaxPiece+1))
	w.put(c, long, []int32{1})
	w.put(c, "many", make([]int32, cacheMaxIDs+1))
	for _, p := range []string{long, "many"} {
		if _, ok := w.get(c, p, nil); ok {
			t.Errorf("%.8q: stored though it does not fit", p)
		}
	}
	w.put(c, "abc", []int32{1})
	other := newWordCache() // same generation, another cache
	if _, ok := w.get(other, "abc", nil); ok {
		t.Error("found another cache's piece")
	}
	if _, ok := w.get(c, "abc", nil); ok {
		t.Error("found a piece after the slots served another cache")
	}
}

// TestWordCacheConcurrent has goroutines, each with slots of its own as
// each scratch space has, put and get far more pieces than the slots
// hold while another resets the cache they share: every hit must give
// the piece's own ids. Run it with -race as well.
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
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				c.reset()
				runtime.Gosched()
			}
		}
	}()
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := new(wordSlots)
			var buf []int32
			for i := range ops {
				k := (i*(g+1)*31 + g) % len(pieces)
				var ok bool
				if buf, ok = w.get(c, pieces[k], buf[:0]); ok {
					if !slices.Equal(buf, want[k]) {
						errs <- fmt.Sprintf("%q: got %v, want %v", pieces[k], buf, want[k])
						return
					}
					continue
				}
				w.put(c, pieces[k], want[k])
			}
		}()
	}
	wg.Wait()
	close(done)
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestCountConcurrent counts and encodes texts of the corpus from many
// goroutines with one tokenizer, whose word cache's generation, table
// of whole tokens and pool of scratch space (with its slots of the word
// cache) they share, and checks the ids against one
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

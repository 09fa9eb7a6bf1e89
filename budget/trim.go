package budget

import (
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/prompt"
	"github.com/tessera-dev/tessera/tokenizer"
)

// trim takes about need tokens from u by its rule and returns the tokens
// it estimates it took. size is u's current rendered count.
func (f *fitter) trim(u *unit, need, size int) int {
	s := u.sec
	switch s.Trim {
	case prompt.TrimDrop:
		u.dropped = true
		return size
	case prompt.TrimLowestRelevance, prompt.TrimOldest:
		took := f.dropItems(u, need)
		if len(s.Items) == 0 && s.Body == "" && s.Summary == "" {
			// Nothing of the section is left but its frame (a heading, a
			// fence, a note), which the items' own counts leave out:
			// count the whole section as gone, and let the next round's
			// estimate correct it if the frame stays.
			took = max(took, size)
		}
		return took
	case prompt.TrimTruncate:
		return f.truncate(u, need)
	}
	return 0
}

// dropItems removes items in the rule's order until need tokens are gone
// or only kept items remain.
func (f *fitter) dropItems(u *unit, need int) int {
	s := u.sec
	idx := make([]int, 0, len(s.Items))
	for i, it := range s.Items {
		if !it.Keep {
			idx = append(idx, i)
		}
	}
	if s.Trim == prompt.TrimOldest {
		slices.SortStableFunc(idx, func(a, b int) int { return cmpInt64(s.Items[a].Seq, s.Items[b].Seq) })
	} else {
		// Lowest relevance first; among equals the later item first.
		slices.SortStableFunc(idx, func(a, b int) int {
			ra, rb := s.Items[a].Relevance, s.Items[b].Relevance
			switch {
			case ra < rb:
				return -1
			case ra > rb:
				return 1
			}
			return b - a
		})
	}
	drop := make(map[int]bool)
	took := 0
	for _, i := range idx {
		if took >= need {
			break
		}
		drop[i] = true
		took += f.count(s.Items[i].Text) + 1
		u.rep.ItemsDropped = append(u.rep.ItemsDropped, s.Items[i].ID)
	}
	if len(drop) == 0 {
		return 0
	}
	kept := make([]prompt.Item, 0, len(s.Items)-len(drop))
	for i, it := range s.Items {
		if !drop[i] {
			kept = append(kept, it)
		}
	}
	s.Items = kept
	s.Omitted += len(drop)
	return took
}

func (f *fitter) markerText(n int) string {
	return strings.Replace(f.marker, "%d", strconv.Itoa(n), 1)
}

// truncate cuts about need tokens (and room for the marker) from the end
// of u's body at a token boundary and appends the marker. Each call cuts
// the original body again, shorter, so markers never pile up.
func (f *fitter) truncate(u *unit, need int) int {
	s := u.sec
	if u.exhausted {
		return 0
	}
	if u.rep.TruncatedTokens == 0 {
		u.original = s.Body
		u.originalTokens = f.count(s.Body)
		u.keptTokens = u.originalTokens
	}
	before := f.count(s.Body)
	keep := u.keptTokens - need - f.count(f.markerText(u.originalTokens))
	if keep >= u.keptTokens {
		keep = u.keptTokens - 1
	}
	if keep <= 0 {
		keep = 0
		u.exhausted = true
	}
	prefix, kept := truncateText(f.counter, u.original, keep)
	u.keptTokens = kept
	cut := u.originalTokens - kept
	s.Body = prefix + f.markerText(cut)
	u.rep.TruncatedTokens = cut
	u.rep.TruncatedBytes = len(u.original) - len(prefix)
	return before - f.count(s.Body)
}

// truncateText returns the longest prefix of text of at most max tokens
// by c, with its count. Counters that can cut at their own token
// boundaries do; for others the cut is found by binary search over
// character boundaries.
func truncateText(c tokenizer.Counter, text string, max int) (string, int) {
	if max <= 0 {
		return "", 0
	}
	if t, ok := c.(tokenizer.Truncator); ok {
		return t.Truncate(text, max)
	}
	offs := make([]int, 0, len(text)+1) // character boundaries
	for i := range text {
		offs = append(offs, i)
	}
	offs = append(offs, len(text))
	lo, hi := 0, len(offs)-1 // text[:offs[lo]] fits; find the largest that does
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if c.Count(text[:offs[mid]]) <= max {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return text[:offs[lo]], c.Count(text[:offs[lo]])
}

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
	// The spans around u change (and u's own, unless it goes whole):
	// what they counted is no longer what they would cost to bring back.
	from := u
	if s.Trim == prompt.TrimDrop {
		from = u.parent
	}
	for a := from; a != nil; a = a.parent {
		a.last = -1
	}
	switch s.Trim {
	case prompt.TrimDrop:
		u.dropped = true
		return size
	case prompt.TrimLowestRelevance, prompt.TrimOldest:
		took := f.dropItems(u, need)
		if len(s.Items) == 0 && s.Body == "" && s.Summary == "" && !f.liveKids(u) {
			// Nothing of the section is left but its frame (a heading, a
			// fence) and the note about the items dropped: the section
			// goes with its items, note and all, so no note is left
			// saying what went from a section that is not there.
			u.dropped = true
			for a := u.parent; a != nil; a = a.parent {
				a.last = -1
			}
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
	idx := make([]int, 0, len(u.items))
	for i, it := range u.items {
		if !it.Keep && !u.itemOut[i] {
			idx = append(idx, i)
		}
	}
	if u.sec.Trim == prompt.TrimOldest {
		slices.SortStableFunc(idx, func(a, b int) int { return cmpInt64(u.items[a].Seq, u.items[b].Seq) })
	} else {
		// Lowest relevance first; among equals the later item first.
		slices.SortStableFunc(idx, func(a, b int) int {
			ra, rb := u.items[a].Relevance, u.items[b].Relevance
			switch {
			case ra < rb:
				return -1
			case ra > rb:
				return 1
			}
			return b - a
		})
	}
	took, n := 0, 0
	for _, i := range idx {
		if took >= need {
			break
		}
		u.itemOut[i] = true
		u.itemDropped = append(u.itemDropped, i)
		took += f.itemCount(u, i) + 1
		n++
	}
	if n > 0 {
		f.setItems(u)
	}
	return took
}

// itemCount counts item i of u once.
func (f *fitter) itemCount(u *unit, i int) int {
	if u.itemTokens[i] < 0 {
		u.itemTokens[i] = f.count(u.items[i].Text)
	}
	return u.itemTokens[i]
}

// setItems rebuilds u's items from those not out, in their given order,
// and its Omitted from the number out.
func (f *fitter) setItems(u *unit) {
	kept := make([]prompt.Item, 0, len(u.items))
	for i, it := range u.items {
		if !u.itemOut[i] {
			kept = append(kept, it)
		}
	}
	u.sec.Items = kept
	u.sec.Omitted = u.baseOmitted + len(u.itemDropped)
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
	f.cutBody(u, keep)
	return before - f.count(s.Body)
}

// cutBody sets u's body to the longest prefix of its original body of at
// most keep tokens and the marker, or to the original body when keep
// covers all of it.
func (f *fitter) cutBody(u *unit, keep int) {
	u.setBody(f.bodyFor(u, keep))
}

// bodyFor returns the body cutBody(u, keep) would set, the length of the
// original's prefix in it, and the tokens of the original it keeps.
func (f *fitter) bodyFor(u *unit, keep int) (body string, prefix, kept int) {
	if keep >= u.originalTokens {
		return u.original, len(u.original), u.originalTokens
	}
	text, kept := truncateText(f.counter, u.original, keep)
	return text + f.markerText(u.originalTokens-kept), len(text), kept
}

// setBody sets u's body as bodyFor made it, and what the report says was
// cut.
func (u *unit) setBody(body string, prefix, kept int) {
	u.sec.Body = body
	u.keptTokens = kept
	u.exhausted = kept == 0
	u.rep.TruncatedTokens = u.originalTokens - kept
	u.rep.TruncatedBytes = len(u.original) - prefix
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

// liveKids reports whether any child of u is still kept.
func (f *fitter) liveKids(u *unit) bool {
	for _, k := range u.kids {
		if !k.dropped {
			return true
		}
	}
	return false
}

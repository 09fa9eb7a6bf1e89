package budget

import (
	"context"
	"slices"

	"github.com/tessera-dev/tessera/prompt"
)

// mergeSlack is how many tokens a restored piece (a section, an item) may
// save by merging with the text at its edges, against its estimate. A
// piece that would not fit even with that saving is not tried; a section
// that fits with that much to spare is given back on its estimate and
// confirmed with the next exact count.
const mergeSlack = 4

// maxRegrowTries bounds the exact counts one truncated body takes to
// regrow in one pass.
const maxRegrowTries = 6

// candidate is one thing trimming took that refill may give back: a
// dropped section, one dropped item, or the cut part of a truncated body.
type candidate struct {
	u    *unit
	item int // index into u.items for an item, else -1
	at   int // where the item stood in u.itemDropped when given back
	// revived is set while an item given back has brought back its
	// section, which had gone with its last item.
	revived bool
	done    bool
	// failed is f.version when the candidate last did not fit: until
	// something else changes, it still does not.
	failed int
}

// apply gives a dropped section or item back; undo takes it out again.
func (c *candidate) apply(f *fitter) {
	u := c.u
	if c.item < 0 {
		u.dropped = false
		return
	}
	if u.dropped {
		u.dropped, c.revived = false, true
	}
	c.at = slices.Index(u.itemDropped, c.item)
	u.itemOut[c.item] = false
	u.itemDropped = slices.Delete(u.itemDropped, c.at, c.at+1)
	f.setItems(u)
}

func (c *candidate) undo(f *fitter) {
	u := c.u
	if c.item < 0 {
		u.dropped = true
		return
	}
	u.itemOut[c.item] = true
	u.itemDropped = slices.Insert(u.itemDropped, c.at, c.item)
	f.setItems(u)
	if c.revived {
		u.dropped, c.revived = true, false
	}
}

// refill gives back what trimming took and what now fits. Trimming goes
// by estimates and stops as soon as the exact count fits, so it can take
// more than it had to. refill walks what was taken in order of
// importance (lowest priority number first, then document order; a
// section's items most valuable first) and gives each piece back if the
// whole prompt, with it, still fits the limit and every cap, by exact
// count. A truncated body regrows to the longest prefix that fits. A
// child under a dropped parent waits until its parent is back.
//
// To spare a render and a count per piece, a piece whose estimate fits is
// given back at once, and the pieces so given back are confirmed together
// by the next exact count (before any piece is refused, any body regrows,
// or the pass ends). If that count does not fit, they are all taken out
// again, the pass starts over from the most important piece, and every
// piece from then on is confirmed alone. Passes repeat until one gives
// nothing back, so when refill returns, no single piece that is out would
// fit.
func (f *fitter) refill(ctx context.Context) error {
	cands := f.candidates()
	if len(cands) == 0 {
		return nil
	}
	for {
		start := f.version
		f.undone = false
		for _, c := range cands {
			if c.done || f.stillOut(c) || f.ancestorDropped(c.u) {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			v := f.version
			switch {
			case c.item >= 0:
				c.done = f.restoreItem(c)
			case c.u.dropped:
				c.done = f.restoreSection(c)
			default:
				c.done = f.regrow(c)
			}
			if !c.done {
				// If taking pieces back out changed the prompt meanwhile,
				// v is stale and the piece is tried again next pass.
				c.failed = v
			}
			if f.undone {
				// Pieces more important than this one went back out:
				// start again from the most important.
				f.undone = false
				break
			}
		}
		f.settle()
		if f.version == start {
			return nil
		}
	}
}

// stillOut reports whether c failed to fit before and nothing has
// happened since that could let it fit now: the room has not grown, and
// neither its section nor the one around it has changed (which could make
// it cheaper: a note that goes with the last dropped item, a parent's
// text for having nothing left to show). With caps in play, any change
// counts.
func (f *fitter) stillOut(c *candidate) bool {
	if c.failed < 0 {
		return false
	}
	if len(f.caps) > 0 {
		return c.failed == f.version
	}
	touched := c.u.touched
	if c.u.parent != nil {
		touched = max(touched, c.u.parent.touched)
	}
	return f.grewAt <= c.failed && touched <= c.failed
}

// changed records that u (and so the section around it) changed at this
// version.
func (f *fitter) changed(u *unit) {
	u.touched = f.version
	if u.parent != nil {
		u.parent.touched = f.version
	}
}

// candidates lists what trimming took, most important first.
func (f *fitter) candidates() []*candidate {
	units := make([]*unit, 0, len(f.units))
	n := 0
	for _, u := range f.units {
		switch {
		case len(u.itemDropped) > 0:
			n += len(u.itemDropped)
		case u.dropped || u.rep.TruncatedTokens > 0:
			n++
		default:
			continue
		}
		units = append(units, u)
	}
	slices.SortStableFunc(units, func(a, b *unit) int {
		if a.sec.Priority != b.sec.Priority {
			return a.sec.Priority - b.sec.Priority
		}
		return a.index - b.index
	})
	all := make([]candidate, 0, n)
	for _, u := range units {
		if len(u.itemDropped) > 0 {
			// The last item dropped was the most valuable of those dropped.
			for _, i := range slices.Backward(u.itemDropped) {
				all = append(all, candidate{u: u, item: i, failed: -1})
			}
			continue
		}
		all = append(all, candidate{u: u, item: -1, failed: -1})
	}
	out := make([]*candidate, len(all))
	for i := range all {
		out[i] = &all[i]
	}
	return out
}

// spare is the room left for u to grow by, less what pieces given back
// on their estimates are expected to take: what is left of the limit, or
// less if a cap on u or a section around it leaves less.
func (f *fitter) spare(u *unit) int {
	return f.room(u) - f.pendingCost
}

// optimistic reports whether pieces may be given back on their
// estimates: not once an estimate has proved wrong, nor with caps in play.
func (f *fitter) optimistic() bool { return !f.exactOnly && len(f.caps) == 0 }

// give gives back a piece whose estimated cost est is within the room:
// on its estimate if that fits (an item's estimate is its section's own
// change; a section's leaves mergeSlack for its edges), else by an exact
// count of the whole prompt with it.
func (f *fitter) give(c *candidate, est int) bool {
	margin := 0
	if c.item < 0 {
		margin = mergeSlack
	}
	if f.optimistic() && est+margin <= f.spare(c.u) {
		c.apply(f)
		f.pend(c, est)
		return true
	}
	if f.settle() && f.exactOnly {
		return false // what was given back did not fit: start over exactly
	}
	c.apply(f)
	if f.attempt() == 0 {
		f.changed(c.u)
		return true
	}
	c.undo(f)
	return false
}

// pend records a piece given back on its estimate est.
func (f *fitter) pend(c *candidate, est int) {
	f.pending = append(f.pending, c)
	f.pendingCost += est
	f.pendingSlack += mergeSlack
	f.version++
	f.changed(c.u)
	if est < 0 {
		f.grewAt = f.version
	}
}

// refuse reports whether a piece estimated to cost at least est should be
// refused. While pieces given back on estimates are unconfirmed the room
// is only estimated: each may have cost up to mergeSlack less. A piece
// that fits in that margin is not refused on the estimate: the pieces are
// confirmed first and the room measured, and refuse reports again, for
// the caller to look again.
func (f *fitter) refuse(u *unit, est int) (refuse, again bool) {
	spare := f.spare(u)
	if est-mergeSlack <= spare {
		return false, false
	}
	if est-mergeSlack > spare+f.pendingSlack || !f.settle() {
		return true, false
	}
	return true, true
}

// settleFailed, when set (by tests), is called whenever pieces given back
// on their estimates have to be taken out again.
var settleFailed func()

// settle confirms the pieces given back on their estimates with one exact
// count. If they do not fit (or break a cap), it takes them all back out,
// and from then on every piece is confirmed alone. It reports whether
// there was anything to settle.
func (f *fitter) settle() bool {
	if len(f.pending) == 0 {
		return false
	}
	expected := f.total + f.pendingCost
	if f.attempt() == 0 {
		if f.total < expected {
			// The pieces took less than their estimates: what was refused
			// against those may fit now.
			f.grewAt = f.version
		}
	} else {
		f.version++
		for _, c := range slices.Backward(f.pending) {
			c.undo(f)
			c.done = false
			f.changed(c.u)
		}
		f.exactOnly = true
		f.undone = true
		f.grewAt = f.version
		if settleFailed != nil {
			settleFailed()
		}
	}
	f.pending = f.pending[:0]
	f.pendingCost, f.pendingSlack = 0, 0
	return true
}

// attempt renders the sections as they now stand and keeps the result if
// it fits the limit and every cap (or, for a section already over its
// cap, is no further over). It returns 0 if it kept it, else how many
// tokens it was over, by the limit or by the cap it was furthest over.
func (f *fitter) attempt() int {
	p := f.rerender()
	n := f.countTotal(p)
	over := n - f.limit
	for _, sp := range p.Sections {
		if cp := f.caps[sp.Key]; cp > 0 {
			// A section its own rule could not bring under its cap may
			// stay as far over as it is, but no further.
			if n, ok := f.current(sp.Key); ok {
				cp = max(cp, n)
			}
			over = max(over, f.spanTokens(p, sp)-cp)
		}
	}
	if over > 0 {
		return over
	}
	f.version++
	if n < f.total {
		f.grewAt = f.version
	}
	f.p, f.total, f.pAt = p, n, f.version
	f.spans = nil
	return 0
}

// restoreSection brings a dropped section back as it was when it was
// dropped. What it costs is known: its span's count when last rendered
// (or, if something inside it was trimmed since, its count rendered on
// its own), less whatever the renderer writes in its place while it is
// out: an empty slot's heading, or the text of a parent left with nothing
// to show. For a child, the change in its parent's count rendered on its
// own is the estimate.
func (f *fitter) restoreSection(c *candidate) bool {
	u := c.u
	cost := u.last
	if cost < 0 {
		// Trimmed inside since it was last counted: count it on its own.
		cost = f.alone(u)
	}
	for {
		var est int
		if u.parent == nil {
			placeholder, _ := f.current(u.path)
			est = cost - placeholder + 1 // and the separator
		} else {
			if frame, ok := f.frame(u.parent); ok {
				if no, again := f.refuse(u.parent, cost-frame); again {
					continue
				} else if no {
					return false
				}
			}
			before := f.alone(u.parent)
			c.apply(f)
			est = f.alone(u.parent) - before
			c.undo(f)
		}
		if no, again := f.refuse(u.parent, est); again {
			continue
		} else if no {
			return false
		}
		return f.give(c, est)
	}
}

// restoreItem puts a dropped item back in its place. Two estimates spare
// the whole-prompt count for items that cannot fit: the item's own count
// less everything in its section that is not title, body, item or child
// (the note about dropped items, which may shrink or go), then the change
// in the section's count rendered on its own.
func (f *fitter) restoreItem(c *candidate) bool {
	u := c.u
	for {
		if u.dropped {
			// The section went with its last item: the item brings it
			// back, so it costs at least its own count.
			if no, again := f.refuse(u, f.itemCount(u, c.item)); again {
				continue
			} else if no {
				return false
			}
		} else if frame, ok := f.frame(u); ok {
			if no, again := f.refuse(u, f.itemCount(u, c.item)+1-frame); again {
				continue
			} else if no {
				return false
			}
		}
		before := f.alone(u)
		c.apply(f)
		est := f.alone(u) - before
		c.undo(f)
		if no, again := f.refuse(u, est); again {
			continue
		} else if no {
			return false
		}
		return f.give(c, est)
	}
}

// spanTokens counts one span of p through the cache.
func (f *fitter) spanTokens(p prompt.Prompt, sp prompt.SectionSpan) int {
	if sp.Start < 0 || sp.End > len(p.Text) || sp.Start > sp.End {
		return 0
	}
	text := p.Text[sp.Start:sp.End]
	h := sp.Hash
	if h == "" {
		h = prompt.Hash(text)
	}
	return f.cache.count(f.counter, h, text)
}

// current returns the tokens of the span with key path in the current
// prompt; ok is false if it has none.
func (f *fitter) current(path string) (n int, ok bool) {
	if f.spans == nil {
		f.spans = make(map[string]int, len(f.p.Sections))
		for i, sp := range f.p.Sections {
			if _, ok := f.spans[sp.Key]; !ok {
				f.spans[sp.Key] = i
			}
		}
	}
	i, ok := f.spans[path]
	if !ok {
		return 0, false
	}
	return f.spanTokens(f.p, f.p.Sections[i]), true
}

// frame is an upper bound on the tokens of u's span that are not its
// title, body, items or children: its heading marks, fences and the note
// about dropped items. Parts counted apart can count one token more each
// than together, so each part adds one. ok is false when the renderer
// gave u or a child no span, or u changed since the prompt was counted.
func (f *fitter) frame(u *unit) (int, bool) {
	if u.touched > f.pAt {
		// Changed since the prompt was last counted (a piece given back
		// on its estimate): the spans no longer describe it.
		return 0, false
	}
	if u.frameAt == f.version {
		return u.frame, u.frameOK
	}
	s := u.sec
	parts := f.count(s.Title) + f.count(s.Body) + 2
	if s.Visibility == prompt.Summary {
		parts = f.count(s.Title) + f.count(s.Summary) + 2
	}
	for i, out := range u.itemOut {
		if !out {
			parts += f.itemCount(u, i)
		}
	}
	ok := true
	for _, c := range u.kids {
		if c.dropped {
			continue
		}
		n, has := f.current(c.path)
		ok = ok && has
		parts += n - 1
	}
	n, has := f.current(u.path)
	u.frameAt, u.frame, u.frameOK = f.version, max(0, n-parts), ok && has
	return u.frame, u.frameOK
}

// alone counts u's section, as it now stands, rendered on its own: its
// span, or the whole text if the renderer gives no spans.
func (f *fitter) alone(u *unit) int {
	p := f.render([]prompt.Section{f.liveSection(u)})
	for _, sp := range p.Sections {
		if sp.Key == u.sec.Key {
			return f.spanTokens(p, sp) + f.subtreeTools(u)
		}
	}
	return f.countPrompt(p) + f.subtreeTools(u)
}

// regrow lengthens a truncated body to the longest prefix of the original
// that fits, or gives back the whole body, marker gone, if that fits. A
// longer prefix changes the prompt by what it changes the section: the
// text around the section stays as it was, so the section's count
// rendered on its own chooses the length, and the whole-prompt count
// confirms it. A length that does not fit narrows the search by how far
// it was over. It reports whether the whole body is back.
func (f *fitter) regrow(c *candidate) bool {
	u := c.u
	hi := u.originalTokens + 1 // the shortest keep known not to fit
	next := -1                 // the keep to try next; -1 to go by the room
	tryWhole := true
	// stop ends the search for want of room, unless pieces given back on
	// estimates stand in that room: then they are confirmed first and the
	// search goes on with the room measured.
	stop := func() bool { return !f.settle() }
	for range maxRegrowTries {
		room := f.spare(u)
		lo := u.keptTokens
		// The whole body may cost less than a short prefix and the marker:
		// try it whatever the room, if its own count says it might fit.
		whole := tryWhole && hi > u.originalTokens && f.count(u.original)-f.count(u.sec.Body)-mergeSlack <= room
		if !whole && (room <= 0 || lo+1 >= hi) {
			if stop() {
				return false
			}
			continue
		}
		was := u.save()
		before := f.alone(u)
		if whole {
			f.cutBody(u, u.originalTokens)
			if whole = f.alone(u)-before <= room; !whole {
				u.restore(was)
				tryWhole = false
				if room <= 0 || lo+1 >= hi {
					if stop() {
						return false
					}
					continue
				}
			}
		}
		if !whole {
			keep := next
			if keep < 0 {
				keep = lo + room
			}
			keep = max(lo+1, min(keep, hi-1, u.originalTokens-1))
			if !f.grow(u, keep, room, before) {
				if stop() {
					return false
				}
				continue
			}
		}
		kept := u.keptTokens
		// One count confirms the pieces given back on estimates and this
		// body together; if it overflows with pieces among it, they are
		// confirmed alone and the body tried again.
		expected := f.total + f.pendingCost + f.alone(u) - before
		pending := len(f.pending) > 0
		over := f.attempt()
		if over == 0 {
			if pending {
				if f.total < expected {
					f.grewAt = f.version
				}
				f.pending = f.pending[:0]
				f.pendingCost, f.pendingSlack = 0, 0
			}
			f.changed(u)
			if whole {
				return true
			}
			next = -1
			if hi <= u.originalTokens {
				next = (kept + hi) / 2
			}
			continue
		}
		u.restore(was)
		if pending {
			f.settle()
			continue
		}
		hi = kept
		next = kept - over
		if next <= lo {
			next = (lo + hi) / 2
		}
	}
	return false
}

// room is how many tokens u may grow by: what is left of the limit, or
// less if a cap on u or a section around it leaves less.
func (f *fitter) room(u *unit) int {
	room := f.limit - f.total
	for a := u; a != nil; a = a.parent {
		if cp := f.caps[a.path]; cp > 0 {
			if n, ok := f.current(a.path); ok {
				room = min(room, max(cp, n)-n)
			}
		}
	}
	return room
}

// grow sets u's body to the longest prefix of at most keep tokens, longer
// than now, whose section rendered on its own (counted before at before)
// grows by no more than room, trying shorter ones by how far each is
// over. It reports false, the body as it was, when even the next longer
// prefix does not fit.
func (f *fitter) grow(u *unit, keep, room, before int) bool {
	lo := u.keptTokens
	was := u.save()
	for step := 0; ; step++ {
		body, prefix, kept := f.longer(u, lo, keep)
		if kept <= lo || kept >= u.originalTokens {
			u.restore(was)
			return false
		}
		u.setBody(body, prefix, kept)
		d := f.alone(u) - before
		if d <= room {
			return true
		}
		u.restore(was)
		if keep <= lo+1 {
			return false
		}
		keep = lo + 1 // guesses are not converging: the smallest step
		if step < 3 {
			keep = max(lo+1, kept-(d-room))
		}
	}
}

// longer returns bodyFor(u, keep), or, when no prefix of at most keep
// tokens is longer than lo (a character spans several tokens), the next
// longer one.
func (f *fitter) longer(u *unit, lo, keep int) (body string, prefix, kept int) {
	body, prefix, kept = f.bodyFor(u, keep)
	for next := keep + 1; kept <= lo && next <= min(keep+16, u.originalTokens); next++ {
		body, prefix, kept = f.bodyFor(u, next)
	}
	return body, prefix, kept
}

// bodyState is what cutBody changes, to undo a regrowth that did not fit.
type bodyState struct {
	body            string
	kept            int
	exhausted       bool
	tokens, byteCut int
}

func (u *unit) save() bodyState {
	return bodyState{u.sec.Body, u.keptTokens, u.exhausted, u.rep.TruncatedTokens, u.rep.TruncatedBytes}
}

func (u *unit) restore(s bodyState) {
	u.sec.Body, u.keptTokens, u.exhausted = s.body, s.kept, s.exhausted
	u.rep.TruncatedTokens, u.rep.TruncatedBytes = s.tokens, s.byteCut
}

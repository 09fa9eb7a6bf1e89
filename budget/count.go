package budget

import "github.com/tessera-dev/tessera/prompt"

// countPrompt counts a rendered prompt through the cache, keyed by its
// hash.
func (f *fitter) countPrompt(p prompt.Prompt) int {
	h := p.Hash
	if h == "" {
		h = prompt.Hash(p.Text)
	}
	return f.cache.count(f.counter, h, p.Text)
}

// count counts text through the cache.
func (f *fitter) count(text string) int {
	return f.cache.count(f.counter, prompt.Hash(text), text)
}

// spanCounts counts each rendered section's text, by path. Span hashes
// are the cache keys, so unchanged sections are not counted again.
func (f *fitter) spanCounts(p prompt.Prompt) map[string]int {
	out := make(map[string]int, len(p.Sections))
	for _, sp := range p.Sections {
		if sp.Start < 0 || sp.End > len(p.Text) || sp.Start > sp.End {
			continue
		}
		text := p.Text[sp.Start:sp.End]
		h := sp.Hash
		if h == "" {
			h = prompt.Hash(text)
		}
		out[sp.Key] = f.cache.count(f.counter, h, text)
	}
	// Sections the renderer gave no span are counted by their content.
	for _, u := range f.units {
		if u.dropped || f.ancestorDropped(u) {
			continue
		}
		if _, ok := out[u.path]; !ok {
			out[u.path] = f.contentCount(u.sec)
		}
	}
	if f.framing != nil {
		// A section's tools cost while it is kept: its count, and each
		// kept section's around it, carries their price.
		for _, u := range f.units {
			if u.tools == 0 || u.dropped || f.ancestorDropped(u) {
				continue
			}
			for a := u; a != nil; a = a.parent {
				out[a.path] += u.tools
			}
		}
	}
	for _, u := range f.units {
		if !u.dropped && !f.ancestorDropped(u) {
			u.last = out[u.path]
		}
	}
	return out
}

// countTotal counts the request that carries p, rendered from the
// sections now kept: without a Framing, p's text; with one, the text as
// the provider receives it and the kept sections' tools, whose share it
// keeps in toolsTotal.
func (f *fitter) countTotal(p prompt.Prompt) int {
	if f.framing == nil {
		return f.countPrompt(p)
	}
	f.toolScratch = f.appendLive(f.toolScratch[:0])
	text, tools := f.framing.Count(p, f.toolScratch, f.count)
	f.toolsTotal = tools
	return text + tools
}

// priceTools prices each section's own tool definitions, once.
func (f *fitter) priceTools() {
	if f.framing == nil {
		return
	}
	for _, u := range f.units {
		for _, t := range u.sec.Tools {
			u.tools += f.framing.Tool(t, f.count)
		}
	}
}

// subtreeTools is the price of the tools of u and of the sections kept
// inside it.
func (f *fitter) subtreeTools(u *unit) int {
	n := u.tools
	for _, k := range u.kids {
		if !k.dropped {
			n += f.subtreeTools(k)
		}
	}
	return n
}

func (f *fitter) contentCount(s *prompt.Section) int {
	n := f.count(s.Title) + f.count(s.Body)
	if s.Visibility == prompt.Summary {
		n = f.count(s.Title) + f.count(s.Summary)
	}
	for _, it := range s.Items {
		n += f.count(it.Text) + 1
	}
	return n
}

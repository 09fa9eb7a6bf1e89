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
		u.last = out[u.path]
	}
	return out
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

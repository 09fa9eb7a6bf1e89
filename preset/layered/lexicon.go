package layered

import (
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/embed"
)

// A lexicon indexes the words of a catalog's tools (their names,
// keywords and descriptions), so that the ranker sees how much of what a
// task says, in the words the catalog itself uses, each tool names: "is
// there a ticket open about ..." and an issue tracker whose keywords say
// "ticket". The hashed vectors see that too, but diluted by every other
// word of the two texts; the lexicon weighs each word by how few of the
// catalog's tools name it (a word every tool names says little), as a
// search engine weighs a query's words. Whether the name, a keyword or
// the description names a word made no difference on the project's
// catalogs, so all count the same.
//
// Words of a letter script are matched by a stem (the first
// lexStemRunes letters of a word at least that long, a final "s" off a
// shorter one); words of a Chinese or Japanese script, which a task does
// not set apart with spaces, are found anywhere in its text.
type lexicon struct {
	n     int                // how many tools
	stems map[string][]int   // the tools naming each stem
	runs  []lexRun           // the CJK words of the tools, each with its tools
	idf   map[string]float64 // each stem's and run's weight
}

// lexRun is a CJK word of the catalog and the tools naming it.
type lexRun struct {
	text  string
	tools []int
}

// lexStemRunes is how many letters of a word its stem keeps.
const lexStemRunes = 5

// lexStem is the stem of w, a word as embed.Words gives it, and whether
// it is one the lexicon counts (of at least three letters, not a stop
// word, not of a CJK script).
func lexStem(w string) (string, bool) {
	n := utf8.RuneCountInString(w)
	if n < 3 || embed.StopWord(w) || isCJK(w) {
		return "", false
	}
	if n >= lexStemRunes {
		i := 0
		for j := range w {
			if i == lexStemRunes {
				return w[:j], true
			}
			i++
		}
		return w, true
	}
	if n >= 4 && strings.HasSuffix(w, "s") {
		return w[:len(w)-1], true
	}
	return w, true
}

// isCJK reports whether w starts with a Han, Hiragana or Katakana letter.
func isCJK(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// newLexicon indexes the words of caps' names, keywords and
// descriptions.
func newLexicon(caps []Capability) *lexicon {
	l := &lexicon{n: len(caps), stems: map[string][]int{}, idf: map[string]float64{}}
	runs := map[string][]int{}
	add := func(m map[string][]int, key string, tool int) {
		if !slices.Contains(m[key], tool) {
			m[key] = append(m[key], tool)
		}
	}
	for i := range caps {
		c := &caps[i]
		for _, w := range embed.Words(c.nameAndKeywords() + " " + c.Description) {
			if isCJK(w) {
				if utf8.RuneCountInString(w) >= 2 {
					add(runs, w, i)
				}
				continue
			}
			if s, ok := lexStem(w); ok {
				add(l.stems, s, i)
			}
		}
	}
	weight := func(df int) float64 { return math.Log(1 + float64(l.n)/float64(df)) }
	for s, hits := range l.stems {
		l.idf[s] = weight(len(hits))
	}
	for _, text := range slices.Sorted(maps.Keys(runs)) {
		l.runs = append(l.runs, lexRun{text, runs[text]})
		l.idf[text] = weight(len(runs[text]))
	}
	return l
}

// match is, for each tool, the share of the weight of the task's words
// that the catalog names at all that the tool names: 0 to 1, 0 for every
// tool when the task names none of the catalog's words. words are the task's
// words (embed.Words).
func (l *lexicon) match(words []string) []float64 {
	if l == nil {
		return nil
	}
	out := make([]float64, l.n)
	var total float64
	count := func(key string, tools []int) {
		w := l.idf[key]
		total += w
		for _, t := range tools {
			out[t] += w
		}
	}
	var seen []string
	for _, w := range words {
		s, ok := lexStem(w)
		if !ok || slices.Contains(seen, s) {
			continue
		}
		seen = append(seen, s)
		if tools, ok := l.stems[s]; ok {
			count(s, tools)
		}
	}
	if len(l.runs) > 0 && slices.ContainsFunc(words, isCJK) {
		// The task's words, folded as the catalog's were (embed.Words
		// drops a kana's voicing mark as it drops an accent).
		folded := strings.Join(words, " ")
		for _, r := range l.runs {
			if strings.Contains(folded, r.text) {
				count(r.text, r.tools)
			}
		}
	}
	if total == 0 {
		return out
	}
	for i := range out {
		out[i] /= total
	}
	return out
}

package layered

import (
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/russian"
)

// A glossary gives, for an English word of everyday work ("invoice",
// "leave", "complaint"), its words in the other languages selection
// reads (defaults/glossary/*.tsv). A catalog written in English names
// its tools in English; a task written in German or Japanese says
// "Rechnung" or "請求書". The built-in concepts know a software agent's
// words in every language; the glossary carries a catalog's own words
// across, so that a tool's keywords read as a concept (see keywordTerms
// and glossKeywords), and a setup's own concepts written in English
// (see glossConcepts), are found in a task written in any of them.
//
// Each file holds one language, named by its code (de.tsv): a line per
// English headword, a tab, and its words in that language, separated by
// semicolons. Lines starting with "#" and blank lines are skipped. A
// word keeps its languages, so that a task finds it only in one of them
// (see taskLanguage).
type glossary struct {
	// lines are, by English headword in lower case, the right side of
	// each of its lines, as written, with the line's language: of
	// splits them when it is asked for a headword, so that reading the
	// glossary, once a process, is only splitting it into lines.
	lines map[string][]glossLine
	// asks are the words of requestVerbs, in every language: of leaves
	// them out of the other headwords' words.
	asks map[string]bool
	// perHead is how many lines a headword may have, one a file read,
	// when known (the built-in glossary's).
	perHead int
}

// glossaryHeadwords is about how many headwords the built-in glossary
// holds, to size its map.
const glossaryHeadwords = 4600

// glossLine is the right side of a glossary line and its file's
// language (the empty set for a file named by no language's code).
type glossLine struct {
	words string
	lang  langSet
}

// glossTerm is a glossary word, as selection matches it, and the
// languages whose files list it for the headword asked for.
type glossTerm struct {
	word string
	lang langSet
}

// withGloss is ts with t: t's languages added to those of the same word
// in ts, or t appended when ts does not hold its word.
func withGloss(ts []glossTerm, t glossTerm) []glossTerm {
	if i := slices.IndexFunc(ts, func(o glossTerm) bool { return o.word == t.word }); i >= 0 {
		ts[i].lang |= t.lang
		return ts
	}
	return append(ts, t)
}

// glossWords are the words of ts.
func glossWords(ts []glossTerm) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.word
	}
	return out
}

// requestVerbs are the English verbs nearly every request says ("check
// the booking", "send the invoice"). Their words in the other languages
// ("prüfen", "revisar", "проверить") often translate another headword
// too, in another sense ("review", an online rating): the glossary
// leaves them out of every other headword's words, or a catalog's
// "review" tool would be found by every German task that says "prüfen"
// (measured: TestKeywordRankerCatalogs, 0.604, 0.615 with them, 0.610,
// 0.620 without).
var requestVerbs = []string{"add", "ask", "change", "check", "confirm", "do", "examine", "find", "get", "give", "help", "inspect",
	"look", "make", "put", "remove", "see", "send", "set", "show", "take", "tell", "update", "use", "verify"}

// maxGlossaryLine bounds a glossary line, in bytes.
const maxGlossaryLine = 4096

// builtinGlossary is the built-in glossary, read once a process, when
// a setup first has a keyword concept or a concept of its own in ASCII.
var builtinGlossary = sync.OnceValues(func() (*glossary, error) {
	names, err := fs.Glob(defaults, "defaults/glossary/*.tsv")
	if err != nil {
		return nil, err
	}
	files := make([][]byte, len(names))
	for i, name := range names {
		if files[i], err = defaults.ReadFile(name); err != nil {
			return nil, err
		}
	}
	return readGlossary(names, files)
})

// readGlossary reads the glossary files, each of names (de.tsv, or a
// path ending so) holding the data of files at its index.
func readGlossary(names []string, files [][]byte) (*glossary, error) {
	// Sized for the built-in headwords, each with a line a file.
	g := &glossary{lines: make(map[string][]glossLine, glossaryHeadwords), perHead: len(names)}
	for i, name := range names {
		if err := g.read(path.Base(name), files[i]); err != nil {
			return nil, err
		}
	}
	g.asks = map[string]bool{}
	for _, v := range requestVerbs {
		for _, l := range g.lines[v] {
			for w := range strings.SplitSeq(l.words, ";") {
				g.asks[glossWord(w, l.lang)] = true
			}
		}
	}
	return g, nil
}

// read adds the glossary lines of data, a file named name, to g: in the
// language name's stem names ("de" for de.tsv).
func (g *glossary) read(name string, data []byte) error {
	lang := langOf(strings.TrimSuffix(name, ".tsv"))
	return eachHeadLine(name, data, maxGlossaryLine, "an English word, a tab, and its words separated by semicolons", func(_ int, head, words string) error {
		head = strings.ToLower(strings.TrimSpace(head))
		lines, ok := g.lines[head]
		if !ok && g.perHead > 1 {
			lines = make([]glossLine, 0, g.perHead)
		}
		g.lines[head] = append(lines, glossLine{words, lang})
		return nil
	})
}

// eachHeadLine calls f with each line of data, a file named name whose
// lines are each an English headword, a tab, and its words (a glossary
// file, or the associations): the line's number, its headword as
// written, and the rest. Lines starting with "#" and blank lines are
// skipped. A line of more than max bytes, not in UTF-8, or with no tab
// or no headword is an error naming the line, want saying what a line
// holds; so is an error f returns, which names the line itself.
func eachHeadLine(name string, data []byte, max int, want string, f func(line int, head, rest string) error) error {
	rest := string(data)
	valid := utf8.ValidString(rest) // else each line is checked, to name the one
	for line := 1; rest != ""; line++ {
		var text string
		text, rest, _ = strings.Cut(rest, "\n")
		if len(text) > max {
			return fmt.Errorf("%s:%d: a line of %d bytes: a line may hold at most %d", name, line, len(text), max)
		}
		text = strings.TrimSpace(text)
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		if !valid && !utf8.ValidString(text) {
			return fmt.Errorf("%s:%d: not UTF-8: write the file in UTF-8", name, line)
		}
		head, words, ok := strings.Cut(text, "\t")
		if !ok || strings.TrimSpace(head) == "" {
			return fmt.Errorf("%s:%d: want %s", name, line, want)
		}
		if err := f(line, head, words); err != nil {
			return err
		}
	}
	return nil
}

// of returns the words of term, an English word or term of a few words,
// in the glossary's other languages: those of term itself, or, for a
// plural the glossary does not hold, of its singular. Each is in lower
// case and loose (see glossWord), long enough to match (see glossable), no
// English headword, no word of a request verb's (see requestVerbs) but
// for a request verb's own, and listed once, with the languages of the
// lines that list it. It returns nil for a term the glossary does not
// hold.
func (g *glossary) of(term string) []glossTerm {
	return g.ofIn(term, 0)
}

// ofIn is of, with only the words of the files of languages in (all of
// them when in is empty).
func (g *glossary) ofIn(term string, in langSet) []glossTerm {
	return g.ofInWhere(term, in, nil)
}

// ofInWhere is ofIn with only the words, as their lines write them, keep
// takes (all, for a nil keep).
func (g *glossary) ofInWhere(term string, in langSet, keep func(string) bool) []glossTerm {
	if g == nil {
		return nil
	}
	term = plain(term)
	for _, head := range append([]string{term}, singulars(term)...) {
		lines, ok := g.lines[head]
		if !ok {
			continue
		}
		asks := g.asks
		if slices.Contains(requestVerbs, head) {
			asks = nil
		}
		var out []glossTerm
		for _, l := range lines {
			if in != 0 && l.lang&in == 0 {
				continue
			}
			for w := range strings.SplitSeq(l.words, ";") {
				if keep != nil && !keep(w) {
					continue
				}
				w = glossWord(w, l.lang)
				if _, english := g.lines[w]; !glossable(w) || english || asks[w] {
					continue
				}
				out = withGloss(out, glossTerm{w, l.lang})
			}
		}
		return out
	}
	return nil
}

// glossWord is w, a word as a glossary line of language lang writes
// it, as selection matches it: trimmed, in lower case, and loose, or,
// for a single Russian word, its Snowball stem when that keeps
// minStemRunes letters (see russianStem).
func glossWord(w string, lang langSet) string {
	w = strings.ToLower(strings.TrimSpace(w))
	if lang == langRU {
		if s, ok := russianStem(w); ok {
			return s
		}
	}
	return loose(w)
}

// minStemRunes is the fewest letters a Russian stem keeps, or the word
// is left to loose: a shorter stem starts too many other words.
const minStemRunes = 4

// russianStem is w's stem by the Snowball project's Russian stemmer
// ("жалоба" "жалоб", which "жалобу" and "жалобы" start with), and
// whether it is one: w is a single word, and its stem keeps
// minStemRunes letters. Russian marks a noun's case and a verb's person
// at the end of the word, after stems that loose, which cuts only final
// vowels off words of seven letters or more, leaves whole: a task that
// asks to "завести жалобу" did not find a complaint. The other
// languages' Snowball stemmers gave no more than loose on the catalogs
// found by keywords, each left out of training in turn
// (TestKeywordRankerCatalogs: Spanish lost three points of precision).
func russianStem(w string) (string, bool) {
	if strings.ContainsRune(w, ' ') || w == "" {
		return "", false
	}
	env := snowballstem.NewEnv(w)
	russian.Stem(env)
	s := env.Current()
	return s, utf8.RuneCountInString(s) >= minStemRunes
}

// extend returns the words g gives terms, those of a concept, that terms
// does not hold yet, each once, with the languages of all the
// headwords' lines that list it. A term written whole ("=invoice") is
// looked up without its mark.
func (g *glossary) extend(terms []string) []glossTerm {
	var out []glossTerm
	for _, t := range terms {
		for _, w := range g.of(strings.TrimPrefix(t, "=")) {
			if slices.Contains(terms, w.word) {
				continue
			}
			out = withGloss(out, w)
		}
	}
	return out
}

// singulars are the forms an English plural term may have in the
// singular, its last word's ending taken off: "policies" "policy",
// "boxes" "box", "invoices" "invoice".
func singulars(term string) []string {
	var out []string
	switch {
	case strings.HasSuffix(term, "ies") && len(term) > 4:
		out = append(out, term[:len(term)-3]+"y")
	case strings.HasSuffix(term, "es") && len(term) > 3:
		out = append(out, term[:len(term)-2])
	}
	if strings.HasSuffix(term, "s") && !strings.HasSuffix(term, "ss") && len(term) > 3 {
		out = append(out, term[:len(term)-1])
	}
	return out
}

// glossable reports whether w is long enough to be matched in a task
// without matching words it is only a part of: two characters of a
// Chinese or Japanese script (one is found inside too many others), or
// three letters.
func glossable(w string) bool {
	n := utf8.RuneCountInString(w)
	if wide(w) && (hasIdeograph(w) || isCJK(w)) {
		return n >= 2
	}
	return n >= 3
}

// glossVowels are the vowels loose takes off a word's end.
const glossVowels = "aeiouyáéíóúâêôãõàèìòùаеёиоуыэюяьй"

// loose is w as a stem that also matches its other forms: a word of
// seven letters or more, of a letter script, loses an infinitive's
// ending ("-ar", "-er", "-ir", "-ть", in a word of eight letters or
// more) and up to two final vowels, keeping five letters at least:
// "reembolsar" is "reembols" (reembolso, reembolsado), "отсутствие"
// "отсутств" (отсутствия). Selection matches a term of four letters or
// more as the stem of the words that start with it; the languages of
// the glossary but English, Chinese and Japanese inflect the end of a
// word.
func loose(w string) string {
	if utf8.RuneCountInString(w) < 7 || strings.ContainsRune(w, ' ') || wide(w) {
		return w
	}
	r := []rune(w)
	switch n := len(r); {
	case n >= 8 && r[n-1] == 'r' && strings.ContainsRune(glossVowels, r[n-2]):
		r = r[:n-2]
	case n >= 8 && string(r[n-2:]) == "ть":
		r = r[:n-2]
	}
	for i := 0; i < 2 && len(r) > 5 && strings.ContainsRune(glossVowels, r[len(r)-1]); i++ {
		r = r[:len(r)-1]
	}
	return string(r)
}

// wide reports whether w holds a character at U+2000 or above (its
// UTF-8 encoding starts with a byte of 0xE2 or more): none of a Latin,
// Greek or Cyrillic word does, every Chinese or Japanese one does. It
// spares the reading of the glossary the look-up of each letter's
// script.
func wide(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] >= 0xE2 {
			return true
		}
	}
	return false
}

// glossConcepts returns, for each of a setup's own concepts (concepts:
// in layered.yaml) whose words are all written in ASCII, as a team that
// writes in English alone writes them, the built-in glossary's words
// for them in the other languages. A concept with a word in another
// script was written in its users' languages, and is left as it is.
func glossConcepts(extra map[string][]string) (map[string][]glossTerm, error) {
	var g *glossary
	out := map[string][]glossTerm{}
	for _, name := range slices.Sorted(maps.Keys(extra)) {
		terms := extra[name]
		if slices.ContainsFunc(terms, func(t string) bool { return !isASCII(t) }) {
			continue
		}
		if g == nil {
			var err error
			if g, err = builtinGlossary(); err != nil {
				return nil, err
			}
		}
		if ws := g.extend(terms); len(ws) > 0 {
			out[name] = ws
		}
	}
	return out, nil
}

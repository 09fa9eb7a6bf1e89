package layered

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v4"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/internal/hanfold"
	"github.com/tessera-dev/tessera/internal/lazyre"
)

// Concepts find the concepts of a software agent's work that a text
// names, in any of the languages of their words (see
// defaults/concepts.yaml). Selection adds the concepts a task shares
// with a tool to their similarity, so that "Leia o arquivo" finds
// read_file as "Read the file" does.
type Concepts struct {
	// words are single words of letter scripts, by the concept; stems of
	// four letters or more match words that start with them, shorter
	// ones match whole words.
	words []conceptTerm
	// runs are terms of several words, matched word for word;
	// runsByFirst indexes them by their first word.
	runs        []conceptRun
	runsByFirst map[string][]int32
	// ideographs are Chinese and Japanese terms, matched anywhere, the
	// longest first; ideographsByFirst indexes them by their first
	// character, in that order.
	ideographs        []conceptTerm
	ideographsByFirst map[rune][]int32
	names             []string
	// terms are the words of words, to tell a word some term names whole.
	terms map[string]bool
	// byWord, byStem and byLen index words: by the term, by the first
	// four bytes of a stem (a term of four bytes or more, not exact), and
	// by a term's length in letters and first letter (for misspellings,
	// which differ by a letter at most and start with the word's first
	// or second letter, see typo), each in the order of words.
	byWord, byStem map[string][]int32
	byLen          map[slipKey][]int32
	// runWords are the distinct words of runs long enough to be
	// misspelt, in the order runs first hold them, and runWordsByLen
	// indexes them by length and first letter, as byLen does words.
	runWords      []string
	runWordsByLen map[slipKey][]int32
	// every is set for the finder of a glossary's headwords (see
	// assocIndex.finder): a task's words are read as written (among so
	// many terms nearly any word would be a slip of one), and every term
	// found names its concept, also one inside another's or the same as
	// another's ("漏水" is a leak and a flood).
	every bool
}

// slipKey indexes the terms a misspelt word may be a slip of: by a
// term's length in letters and its first letter.
type slipKey struct {
	n     int
	first rune
}

// slipKeyOf is w's slipKey.
func slipKeyOf(w string) slipKey {
	r, _ := utf8.DecodeRuneInString(w)
	return slipKey{utf8.RuneCountInString(w), r}
}

type conceptTerm struct {
	term, concept string
	exact         bool    // "=word": the whole word only, never a stem
	lang          langSet // a glossary word's languages (see taskLanguage); empty for any other
}

type conceptRun struct {
	words   []string
	concept string
	lang    langSet
}

// builtinConcepts are the built-in concepts (defaults/concepts.yaml),
// read once a process: Concepts never change once read, so every setup
// without concepts of its own shares them.
var builtinConcepts = sync.OnceValues(func() (*Concepts, error) {
	return parseConcepts(builtinConceptsData(), nil)
})

// builtinConceptsData is defaults/concepts.yaml.
func builtinConceptsData() []byte {
	data, _ := defaults.ReadFile("defaults/concepts.yaml")
	return data
}

// parseConcepts reads concepts written as a mapping of each concept's
// name to its words; extra are more of them (layered.yaml's concepts:),
// whose words are added to a concept of the same name.
func parseConcepts(data []byte, extra map[string][]string) (*Concepts, error) {
	entries, err := decodeConcepts(data)
	if err != nil {
		return nil, err
	}
	return buildConcepts(entries, extra), nil
}

// conceptEntry is one concept of a concepts file and its words, as
// written.
type conceptEntry struct {
	name  string
	terms []string
}

// decodeConcepts reads a concepts file: a mapping of each concept's name
// to its words, in the order written.
func decodeConcepts(data []byte) ([]conceptEntry, error) {
	var m yaml.Node
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("concepts: %w", err)
	}
	var out []conceptEntry
	if len(m.Content) > 0 {
		doc := m.Content[0]
		if doc.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("concepts: want a mapping of each concept to its words")
		}
		for i := 0; i+1 < len(doc.Content); i += 2 {
			var terms []string
			if err := doc.Content[i+1].Decode(&terms); err != nil {
				return nil, fmt.Errorf("concepts: %s (line %d): want a list of words: %w", doc.Content[i].Value, doc.Content[i].Line, err)
			}
			out = append(out, conceptEntry{doc.Content[i].Value, terms})
		}
	}
	return out, nil
}

// buildConcepts lays concepts out for matching: entries, then extra,
// whose words are added to a concept of the same name, in the order of
// their names.
func buildConcepts(entries []conceptEntry, extra map[string][]string) *Concepts {
	c := &Concepts{terms: map[string]bool{}}
	for _, e := range entries {
		c.add(e.name, e.terms)
	}
	return c.extend(extra, nil)
}

// extended returns a copy of c with extra's words added, as buildConcepts
// would have added them after c's own, and after each concept's words of
// extra, glossed's (the glossary's words for them, each with its
// languages): a setup's own concepts and its keyword concepts are added
// to the built-in concepts, read once a process, without reading those
// again.
func (c *Concepts) extended(extra map[string][]string, glossed map[string][]glossTerm) *Concepts {
	n := &Concepts{
		words:      slices.Clone(c.words),
		runs:       slices.Clone(c.runs),
		ideographs: slices.Clone(c.ideographs),
		names:      slices.Clone(c.names),
		terms:      maps.Clone(c.terms),
	}
	return n.extend(extra, glossed)
}

// extend adds extra's words to c, in the order of their concepts' names,
// and lays c out for matching; it returns c.
func (c *Concepts) extend(extra map[string][]string, glossed map[string][]glossTerm) *Concepts {
	for _, name := range slices.Sorted(mapsKeys(extra)) {
		c.add(name, extra[name])
		for _, g := range glossed[name] {
			c.addTerm(name, g.word, g.lang)
		}
	}
	slices.SortStableFunc(c.ideographs, func(a, b conceptTerm) int { return len(b.term) - len(a.term) })
	c.ideographsByFirst = map[rune][]int32{}
	for i, t := range c.ideographs {
		r, _ := utf8.DecodeRuneInString(t.term)
		c.ideographsByFirst[r] = append(c.ideographsByFirst[r], int32(i))
	}
	c.runsByFirst = map[string][]int32{}
	for i, r := range c.runs {
		c.runsByFirst[r.words[0]] = append(c.runsByFirst[r.words[0]], int32(i))
	}
	c.runWordsByLen = map[slipKey][]int32{}
	seen := map[string]bool{}
	for _, r := range c.runs {
		for _, w := range r.words {
			if k := slipKeyOf(w); k.n >= minTypoLen && !seen[w] {
				seen[w] = true
				c.runWordsByLen[k] = append(c.runWordsByLen[k], int32(len(c.runWords)))
				c.runWords = append(c.runWords, w)
			}
		}
	}
	c.byWord, c.byStem, c.byLen = map[string][]int32{}, map[string][]int32{}, map[slipKey][]int32{}
	for i, t := range c.words {
		c.byWord[t.term] = append(c.byWord[t.term], int32(i))
		if !t.exact && len(t.term) >= 4 {
			c.byStem[t.term[:4]] = append(c.byStem[t.term[:4]], int32(i))
		}
		if k := slipKeyOf(t.term); k.n >= minTypoLen {
			c.byLen[k] = append(c.byLen[k], int32(i))
		}
	}
	return c
}

// add adds concept's terms to c, each as a word, a run of words or a
// Chinese or Japanese term.
func (c *Concepts) add(concept string, terms []string) {
	if !slices.Contains(c.names, concept) {
		c.names = append(c.names, concept)
	}
	for _, t := range terms {
		c.addTerm(concept, t, 0)
	}
}

// addTerm adds term t of concept, a concept c names already, found only
// in a task of one of languages lang (any, when empty).
func (c *Concepts) addTerm(concept, t string, lang langSet) {
	t = strings.ToLower(strings.TrimSpace(t))
	exact := strings.HasPrefix(t, "=")
	t = strings.TrimPrefix(t, "=")
	switch {
	case t == "":
	case hasIdeograph(t):
		c.ideographs = append(c.ideographs, conceptTerm{t, concept, false, lang})
		if f := hanfold.Simplified(t); f != t && !hanfold.HasKana(t) {
			// As a Chinese text is read (see of); the term as
			// written still finds a Japanese one.
			c.ideographs = append(c.ideographs, conceptTerm{f, concept, false, lang})
		}
	default:
		ws := embed.Words(t)
		switch len(ws) {
		case 0:
		case 1:
			c.words = append(c.words, conceptTerm{ws[0], concept, exact, lang})
			c.terms[ws[0]] = true
		default:
			c.runs = append(c.runs, conceptRun{ws, concept, lang})
		}
	}
}

// named returns, in the order of c.words, the terms that name w: those
// written as w, and, unless some term is w as written, the stems w starts
// with. buf is reused for the result.
func (c *Concepts) named(w string, buf []int32) []int32 {
	buf = append(buf[:0], c.byWord[w]...)
	if len(w) >= 4 && !c.terms[w] {
		for _, k := range c.byStem[w[:4]] {
			if strings.HasPrefix(w, c.words[k].term) && c.words[k].term != w {
				buf = append(buf, k)
			}
		}
		slices.Sort(buf)
	}
	return buf
}

func mapsKeys(m map[string][]string) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// minTypoLen is the shortest word, and term, a misspelling is looked
// for in: in shorter ones one edit makes another word ("test", "text").
const minTypoLen = 5

// correct writes each misspelt word of words ("comit", "chnaged") as
// the term, or word of a term of several words, it is a slip of (see
// typo): the first in the order the concepts define them. A word some
// term names as written, or shorter than minTypoLen, stays as it is.
func (c *Concepts) correct(words []string) {
	var cands []int32
	for i, w := range words {
		if utf8.RuneCountInString(w) < minTypoLen || c.names1(w) {
			continue
		}
		n := utf8.RuneCountInString(w)
		var t string
		t, cands = slipOf(w, n, c.byLen, func(k int32) string { return c.words[k].term }, cands)
		if t == "" {
			// The words of runs, the first a run holds first, as a scan
			// of the runs in order would find them.
			t, cands = slipOf(w, n, c.runWordsByLen, func(k int32) string { return c.runWords[k] }, cands)
		}
		if t != "" {
			words[i] = t
		}
	}
}

// slipOf returns the first term, in the order of their indexes, that w
// (of n letters) is a slip of a letter of, among those byLen indexes by
// a length within one of n and a first letter that is w's first or
// second (as every term w is a slip of has); "" when none is. cands is
// scratch space, returned for reuse.
func slipOf(w string, n int, byLen map[slipKey][]int32, term func(int32) string, cands []int32) (string, []int32) {
	w0, size := utf8.DecodeRuneInString(w)
	w1, _ := utf8.DecodeRuneInString(w[size:])
	cands = cands[:0]
	for m := n - 1; m <= n+1; m++ {
		cands = append(cands, byLen[slipKey{m, w0}]...)
		if w1 != w0 {
			cands = append(cands, byLen[slipKey{m, w1}]...)
		}
	}
	slices.Sort(cands)
	for _, k := range cands {
		if t := term(k); typo(w, t) {
			return t, cands
		}
	}
	return "", cands
}

// matchRuns calls f with each term of several words that words hold,
// and where it starts, through the index of the terms by their first
// word.
func (c *Concepts) matchRuns(words []string, f func(i int, r *conceptRun)) {
	for i, w := range words {
		for _, k := range c.runsByFirst[w] {
			r := &c.runs[k]
			if i+len(r.words) <= len(words) && slices.Equal(words[i:i+len(r.words)], r.words) {
				f(i, r)
			}
		}
	}
}

// names1 reports whether some term, or word of a term of several words,
// names w as written.
func (c *Concepts) names1(w string) bool {
	if len(c.byWord[w]) > 0 {
		return true
	}
	if len(w) >= 4 {
		for _, k := range c.byStem[w[:4]] {
			if strings.HasPrefix(w, c.words[k].term) {
				return true
			}
		}
	}
	for _, r := range c.runs {
		if slices.Contains(r.words, w) {
			return true
		}
	}
	return false
}

// typo reports whether w is a slip of the whole word term: a letter
// left out (in a word of six letters or more, unless it doubles its
// neighbour) or doubled, or two neighbours swapped ("comit", "reveiw",
// "chnaged", "evrything"). A letter changed for another is not looked for: that
// makes other words too often ("after", "alter"). Stems are not either:
// "depuis" is not a slip of "depur". Bytes are compared, so a letter
// outside ASCII counts as an edit or more, never less.
func typo(w, term string) bool {
	if w == term {
		return false
	}
	if !isASCII(w) || !isASCII(term) {
		// Letters, not bytes: "тетсы" is "тесты" with two swapped. The
		// first letters are compared before the words are copied, as
		// typoOf would compare them.
		w0, n := utf8.DecodeRuneInString(w)
		w1, _ := utf8.DecodeRuneInString(w[n:])
		t0, _ := utf8.DecodeRuneInString(term)
		if w0 != t0 && w1 != t0 {
			return false
		}
		return typoOf([]rune(w), []rune(term))
	}
	// Most terms differ in their first letters: no copy for those.
	if len(w) < 2 || len(term) < 2 || w[0] != term[0] && w[1] != term[0] {
		return false
	}
	return typoOf([]byte(w), []byte(term))
}

// typoOf is typo over letters: bytes for ASCII words, runes for others.
func typoOf[L byte | rune](a, b []L) bool {
	if len(a) < 2 || len(b) < 2 || a[0] != b[0] && a[1] != b[0] {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	switch len(b) - len(a) {
	case 0: // two neighbours swapped
		return i+1 < len(a) && a[i] == b[i+1] && a[i+1] == b[i] && slices.Equal(a[i+2:], b[i+2:])
	case 1: // one left out, or doubled
		// In a word of five letters, only a doubled letter: "comit" is
		// "commit", but "order" is not "ordner".
		doubled := i+1 < len(b) && b[i] == b[i+1] || i > 0 && b[i] == b[i-1]
		return slices.Equal(a[i:], b[i+1:]) && (len(a) > minTypoLen || doubled)
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// apartScripts puts a space between a Chinese or Japanese letter and a
// letter of another script, which no space parts in "天気APIのレスポンス" or
// "READMEのtypo": the Latin word is a word of its own.
func apartScripts(s string) string {
	if !hasIdeograph(s) {
		return s
	}
	var b strings.Builder
	prev := 0 // 1: an ideograph or kana, 2: another letter or digit
	for _, r := range s {
		cur := 0
		switch {
		case isIdeograph(r):
			cur = 1
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			cur = 2
		}
		if prev != 0 && cur != 0 && prev != cur {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
		prev = cur
	}
	return b.String()
}

func isIdeograph(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

func hasIdeograph(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana) {
			return true
		}
	}
	return false
}

// Of returns the concepts text names, in the order they are defined.
// A term of several words is matched first and takes its words: in
// "who changed it", the run "who changed" names history, and "changed"
// no longer names a diff on its own.
func (c *Concepts) Of(text string) []string {
	return c.of(text, false)
}

// of is Of, read as a task's words when task is set: misspelt words are
// looked for, since people type tasks in a hurry, and a word of running
// followed by what is run names what is run (see ranObject); neither in
// a catalog's descriptions.
func (c *Concepts) of(text string, task bool) []string {
	if c == nil {
		return nil
	}
	found := map[string]bool{}
	words := embed.Words(apartScripts(text))
	if task && !c.every {
		c.correct(words)
	}
	taken := make([]bool, len(words))
	at := make([][]string, len(words)) // the concepts each word names
	// A task's language keeps out the glossary's words of the others
	// (see taskLanguage), and a German task's nouns are read as the
	// compounds they often are (see compoundHead).
	var lang langSet
	var nouns map[string]bool
	if task {
		if lang = taskLanguage(text, words); lang == langDE {
			nouns = capitalized(text)
		}
	}
	c.matchRuns(words, func(i int, r *conceptRun) {
		if r.lang.excludes(lang) {
			return
		}
		for j := i; j < i+len(r.words); j++ {
			taken[j] = !c.every
			if !slices.Contains(at[j], r.concept) {
				at[j] = append(at[j], r.concept)
			}
		}
	})
	// A word a term names whole is that term's: "readme" is a file,
	// not also a word that starts like "read".
	var buf []int32
	for i, w := range words {
		if taken[i] {
			continue
		}
		buf = c.named(w, buf)
		if len(buf) == 0 && nouns[w] {
			buf = c.compoundHead(w, buf)
		}
		for _, k := range buf {
			if c.words[k].lang.excludes(lang) {
				continue
			}
			if x := c.words[k].concept; !slices.Contains(at[i], x) {
				at[i] = append(at[i], x)
			}
		}
	}
	for i, cs := range at {
		for _, x := range cs {
			if task && x == runConcept && ranObject(at, i) {
				continue
			}
			found[x] = true
		}
	}
	if hasIdeograph(text) {
		// The longest terms first: a term inside a longer one found
		// names nothing, as a term of several words takes its words. In
		// "把修改提交上去" the changes are what is committed ("修改提交"),
		// and "修改" no longer names an edit.
		lower := strings.ToLower(text)
		if !hanfold.HasKana(lower) {
			// Traditional Chinese is read in the simplified characters
			// most terms are written in ("測試" is "测试"); Japanese, whose
			// kanji share many traditional forms, as written.
			lower = hanfold.Simplified(lower)
		}
		type span struct{ i, j int }
		var spans []span
		for _, k := range c.ideographsIn(lower) {
			t := &c.ideographs[k]
			if t.lang.excludes(lang) {
				continue
			}
			for off := 0; off < len(lower); {
				k := strings.Index(lower[off:], t.term)
				if k < 0 {
					break
				}
				i, j := off+k, off+k+len(t.term)
				off = j
				if c.every || !slices.ContainsFunc(spans, func(s span) bool { return s.i <= i && j <= s.j }) {
					found[t.concept] = true
					spans = append(spans, span{i, j})
				}
			}
		}
	}
	if !task && found[newConcept] {
		// In a catalog's words, what is new is created: "Create a new
		// file" names creation once.
		found[newConcept], found[createConcept] = false, true
	}
	var out []string
	for _, n := range c.names {
		if found[n] && n != noConcept {
			out = append(out, n)
		}
	}
	return out
}

// ideographsIn returns, in the order of c.ideographs, the Chinese and
// Japanese terms whose first character text holds: those it may hold.
func (c *Concepts) ideographsIn(text string) []int32 {
	var out []int32
	seen := map[rune]bool{}
	for _, r := range text {
		if !seen[r] {
			seen[r] = true
			out = append(out, c.ideographsByFirst[r]...)
		}
	}
	slices.Sort(out)
	return out
}

// newConcept is the concept of something new, which a task may create
// ("a new branch") or only look at ("the new Dockerfile"): selection
// reads it as creation (see recorded), the mode does not.
const newConcept = "new"

// createConcept is the concept of creating something.
const createConcept = "create"

// noConcept names terms that name no concept: they take their words,
// as any term of several words does, so that "error handling" is not an
// error, nor "エラー処理" one.
const noConcept = "none"

// placed are the concepts of work done somewhere: a folder named beside
// one is its place.
var placed = []string{"format", "lint", "test", "build", "run", "create", "edit", "commit", "delete", "refactor", "docs"}

// fixedConcepts are what a task to commit a fix may name as still to
// fix: a failing test, build or lint, a bug, a file.
var fixedConcepts = []string{"test", "build", "lint", "debug", "file"}

// codeConcept is the concept of the project's code as a whole: "the
// code of the handler", "在代码里", "コードを見て".
const codeConcept = "code"

// runConcept is the concept of running something.
const runConcept = "run"

// ranObject reports whether one of the three words after words[i] names
// a concept other than running: in "run prettier", "lance le linter" or
// "führ docker compose aus", what is run is that concept's, and the
// tool for it runs it; "run" alone, as in "run ./scripts/regen.sh",
// asks for a tool that runs commands.
func ranObject(at [][]string, i int) bool {
	for j := i + 1; j < len(at) && j <= i+3; j++ {
		if slices.ContainsFunc(at[j], func(x string) bool { return x != runConcept }) {
			return true
		}
	}
	return false
}

// share is how much of the task's concepts (all) a capability names:
// the cosine of the two sets, each concept weighted by how rare it is
// among the capabilities (idf, see Setup.conceptIDF), so that sharing
// "database" says more than sharing "edit", and a concept the
// capability's description alone names counting minor as much as one
// its name or keywords name. Only the concepts of left (a part of all)
// count in the numerator: the share of those left to cover. 0 when
// either set is empty.
func share(left, all []string, c *Capability, idf map[string]float64, minor float64) float64 {
	if len(left) == 0 || len(all) == 0 || len(c.concepts) == 0 {
		return 0
	}
	w := func(x string) float64 {
		if v, ok := idf[x]; ok {
			return v
		}
		return 1
	}
	wc := func(x string) float64 {
		if slices.Contains(c.major, x) {
			return w(x)
		}
		return minor * w(x)
	}
	var dot, na, nb float64
	for _, x := range all {
		na += w(x) * w(x)
	}
	for _, x := range left {
		if slices.Contains(c.concepts, x) {
			dot += w(x) * wc(x)
		}
	}
	for _, x := range c.concepts {
		nb += wc(x) * wc(x)
	}
	return dot / math.Sqrt(na*nb)
}

// conceptIDF weighs each concept by the capabilities that name it: ln(1 +
// n/df), where n is the number of capabilities.
func conceptIDF(caps ...[]Capability) map[string]float64 {
	df, n := map[string]int{}, 0
	for _, cs := range caps {
		for _, c := range cs {
			n++
			for _, x := range c.concepts {
				df[x]++
			}
		}
	}
	out := make(map[string]float64, len(df))
	for c, d := range df {
		out[c] = math.Log(1 + float64(n)/float64(d))
	}
	return out
}

// purpose finds a purpose phrase: "for the fix", "para el fallo", "für
// den Fix", "для этого исправления", "为这个修复", "この修正用に". What it
// names is why the task is done, not what the task asks for: "create a
// branch for the fix" asks for a branch, not an edit.
var purpose = lazyre.New(`(?i)(^|[^\p{L}])(for (the|a|an|this|that|my|our|these|those)|para (el|la|los|las|este|esta|ese|esa|essa|esse|isso)|pra (essa|esse|esta|este|a|o)|pour (le|la|les|ce|cette|ces|un|une)|f(ü|ue)r (den|die|das|einen|eine|diesen|diese|dieses)|для( этого| этой| этих| нового| новой)?)\s+[\p{L}\p{N}_.-]+(\s+[\p{L}\p{N}_.-]+){0,2}|(为|為)(这个|這個|了这个|此)\p{Han}{1,4}|[^\s、。,]{1,10}(用に|のために|のための)`)

// quoted finds a text in quotation marks: a title, a message or a name
// the task gives ("title it 「ログ出力の整理」", "with the message
// "fix the login""), which is what a tool writes, not what it is for.
// Backquotes, which hold a command or a name of code, are not quotes.
var quoted = lazyre.New(`(^|\s)'[^'\n]{1,80}'($|[\s,.;:!?)])|"[^"\n]{1,80}"|“[^”\n]{1,80}”|„[^“”\n]{1,80}[“”]|«[^»\n]{1,80}»|「[^」\n]{1,80}」|『[^』\n]{1,80}』`)

// conjunction finds a word that joins two parts of a task: a purpose
// phrase ends before it, so that in "создай ветку для фикса и закомить"
// the commit is asked for, not a purpose.
var conjunction = lazyre.New(`(?i)(\s)(and|then|e|y|et|puis|und|dann|и|затем|потом)(\s)`)

// folder finds the folders of a path or the prefix of a branch name
// ("billing/" in "billing/tax.go", "fix/" in "fix/tz-offset"): they say
// where, not what. The file name, whose extension may name a concept
// (".csv", ".sql"), stays.
var folder = lazyre.New(`[\p{Latin}\p{Greek}\p{Cyrillic}\p{N}_.-]+/`)

// inPackage finds a package named as the place of the work ("in the
// billing package", "en el paquete de facturación", "im Paket export",
// "в пакете orders", "по новому пакету"): the code's package, not a
// dependency to manage.
var inPackage = lazyre.New(`(?i)(^|[^\p{L}])(in|im|inside|en|no|na|dans|в|во|по)(\s+[\p{L}\p{N}_.-]+)?\s+(packages?|paquetes?|pacotes?|paket|pakets|paquets?|пакет\p{L}*)([^\p{L}\p{N}._-]|[._-]\s|[._-]?$)`)

// cjkPackage finds a package named, in Chinese or Japanese, as the
// place of the work ("auth パッケージの", "payment 包里的"): the code's
// package, as inPackage's.
var cjkPackage = lazyre.New(`([\p{L}\p{N}_.-]+)\s*(パッケージ(の中の|の中|内の|の)|包(里的|里|中的|中))`)

// makeTarget finds a make target written as a command ("`make proto`",
// "`make release`"): one that builds, tests, lints or formats names
// that work (see buildTargets); any other is a command of the shell's,
// not a build.
var makeTarget = lazyre.New("(?i)(`)make\\s+([a-z][a-z0-9_-]*)")

// buildTargets are the make targets that name the work they do.
var buildTargets = []string{"build", "all", "test", "tests", "check", "lint", "vet", "fmt", "format", "compile", "dist"}

// before finds a clause that says what comes after the task ("before I
// commit", "avant que je fasse le commit", "bevor ich merge", "перед
// коммитом"), up to five words and the next mark: it is when, not what.
var before = lazyre.New(`(?i)(^|[^\p{L}])(before|avant|antes|bevor|перед)(\s+[^\s,.;:?!—–()]+){1,5}|(^|[^\p{L}])(since|seit|desde|depuis)(\s+[^\s,.;:?!—–()]+){1,2}|([^\s,.;:?!—–()]+\s+){0,4}(später|later|plus tard|más tarde|mais tarde|позже)|(以后再|后面再|後で)\p{Han}{0,4}`)

// inFile finds a file named as the place of the work: "in
// docker-compose.yml", "dans config/http.yaml", "no arquivo app.py",
// "в .gitignore", "在 settings.py 里", "settings.py の".
var inFile = lazyre.New(`(?i)(^|[^\p{L}])(in|into|inside|dans|en|em|no|na|nos|nas|im|in der|in die|ins|в|во)\s+(the\s+|le\s+|la\s+|el\s+|o\s+|a\s+|den\s+|die\s+|das\s+|der\s+)?([\p{L}\p{N}_./-]*/)?([\p{L}\p{N}_-]+\.(ya?ml|json|toml|sh|py|go|js|ts|tsx|jsx|rb|java|kt|rs|md|txt|cfg|ini|conf|env|xml|gradle|properties|tf|proto)|\.gitignore|\.env|dockerfile|makefile|readme|changelog)([^\p{L}\p{N}_]|$)|在\s*[\p{L}\p{N}_./-]+\.(ya?ml|json|toml|sh|py|go|js|ts|md|txt|env)\s*(里|中|里面)|(dockerfile|readme|[\p{L}\p{N}_./-]+\.(ya?ml|json|toml|sh|py|go|js|ts|md|txt|env|plist|xml|kt|swift|java|rb|rs|gradle|properties))\s*(里的|里|中的|の中の|の|に)`)

// manifest finds a dependency manifest or lock file ("package.json",
// "requirements.txt", "go.mod"): what a task changes inside one is a
// dependency, which the tool that manages them changes.
var manifest = lazyre.New(`(?i)(^|[^\p{L}\p{N}_.-])(requirements[\p{L}\p{N}_.-]*\.txt|package(-lock)?\.json|go\.(mod|sum)|pyproject\.toml|cargo\.(toml|lock)|pom\.xml|build\.gradle(\.kts)?|gemfile(\.lock)?|poetry\.lock|yarn\.lock|pnpm-lock\.yaml)([^\p{L}\p{N}_]|$)`)

// hypothetical finds a clause of what may be done later, up to five
// words and the next mark ("I'm thinking of deleting the old ones",
// "pra decidir se vale criar um job", "ce que ça casserait si on change
// sa signature", "物理削除バッチを作るかどうか"): what is weighed, not the
// work asked for.
var hypothetical = lazyre.New(`(?i)(^|[^\p{L}])(thinking (of|about)|planning to|decide if|decide whether|decide (which|what)|decidir (quais|qual|qué|que|cuáles|cuales|o que|lo que)|décider (si|quels?|quelles?|ce qu)|saber si se puede|saber se (dá|da|pode)|si se puede|entscheiden, (ob|welche)|решим|решить, (что|какие)|pensando en|pensando em|decidir se|decidir si|si on|se a gente|ob wir|ob man|wenn wir|если мы|если)(\s+[^\s,.;:?!—–()]+){1,5}|(如果|要不要)[^，。,.?？]{1,12}|[^、。,.?？]{1,12}(かどうか)`)

// forbidden finds what a task tells the agent not to do yet ("don't
// change anything yet", "sem mexer no código", "no toques nada", "ne
// modifie rien", "ändere noch nichts", "ничего пока не правь", "先别动代码",
// "コードは変更しないで"): a limit on the work, not the work, so that a
// task to look into something does not name the edit it rules out.
var forbidden = lazyre.New(`(?i)(^|[^\p{L}])(don'?t|do not|no need to|without (chang|touch|modif|edit)\p{L}*|sem (mexer|alterar|mudar|tocar)|sin (tocar|cambiar|modificar)|sans (rien )?(toucher|changer|modifier|corriger)|ohne (etwas |was )?(zu )?(ändern|anzufassen)|nichts|nix|ничего|без (изменений|правок)|(no|não|nao)\s+(toques|toque|cambies|modifiques|corrijas|corrige|corrija|mexa|mexe|altere|mude|muda|edites|hagas|faça|faca)|ne\s+(touche|modifie|change)|не\s+(трог|меня|прав|измен)\p{L}*)(\s+[^\s,.;:?!—–()]+){0,4}|(ändere|änder|fass)\p{L}*\s+(noch\s+)?nichts|(先|暂时|暫時)?(别|別|不要|不用)(急着|急著)?(动|動|改|碰|修|提交|推|合并|删|刪)\p{Han}{0,3}|[\p{Han}\p{Katakana}ー]{0,6}[はをも]?(まだ)?(しないで|せずに|しない|触らないで|いじらないで|変えないで)`)

// ofTask returns the concepts a task names, leaving out those that only
// a purpose phrase, a clause of what comes after, a quoted text, the
// folders of a path or a package named as a place name.
//
// A web address ("https://...", "go.dev", "docs.example.jp/api") names
// the concept of the web, httpConcept, whatever its words.
func (c *Concepts) ofTask(task string) []string {
	web := webAddress.MatchString(task)
	task = fullURL.ReplaceAllString(task, " ") // its words are the address's
	task = conjunction.ReplaceAllString(task, "$1,$2$3")
	task = before.ReplaceAllString(task, "$1 ")
	task = hypothetical.ReplaceAllString(task, "$1 ")
	task = forbidden.ReplaceAllString(task, "$1 ")
	task = quoted.ReplaceAllString(purpose.ReplaceAllString(task, " "), " ")
	task = inPackage.ReplaceAllString(task, "$1$2$3 $5")
	task = cjkPackage.ReplaceAllString(task, "$1 ")
	task = makeTarget.ReplaceAllStringFunc(task, func(m string) string {
		sub := makeTarget.FindStringSubmatch(m)
		if slices.Contains(buildTargets, strings.ToLower(sub[2])) {
			return m
		}
		return sub[1] + "shell " + sub[2]
	})
	task = withoutNames(task)
	out := c.of(folder.ReplaceAllString(task, " "), true)
	if web && !(slices.Contains(out, "edit") || slices.Contains(out, createConcept)) || web && (slices.Contains(out, readConcept) || slices.Contains(out, "docs")) {
		// An address a task writes into a file and reads nothing from
		// is a value ("set the staging URL to https://stg2.example.com",
		// "add api.example.jp to ALLOWED_HOSTS"), not a page to fetch.
		out = c.with(out, httpConcept)
	}
	if authorsCommit.MatchString(task) {
		out = c.with(out, historyConcept)
	}
	return out
}

// fullURL finds a web address written out with its scheme.
var fullURL = lazyre.New(`(?i)\bhttps?://[^\s)>\]}"'，。、）]+`)

// summary finds a summary or a description of the changes ("avec un
// résumé des changements", "com uma descricao do que mudou",
// "summarize what changed"): a task that writes one reads the diff,
// though it commits or opens a pull request with the changes (see
// recorded).
var summary = lazyre.New(`(?i)(summary|summari[sz]e|description|describe|résumé|resumo|resumen|descri[cç][aã]o|descripci[oó]n|zusammenfassung|beschreibung|описани\p{L}*|опиши)\s+(\p{L}+\s+){0,2}(of the |of my |of what |des |do que |de lo que |das |der |what |что )?(changes?|changed|changements|modifications|modifs|mudanças|mudou|alterações|cambios|cambió|änderungen|geändert|изменени\p{L}*|поменял\p{L}*)|(改动|变更|修改内容|変更点|変更内容)(的)?(总结|说明|描述|概要|まとめ)`)

// historyConcept is the concept of the repository's history.
const historyConcept = "history"

// authorsCommit finds a commit named by whose it is ("Marta's last
// commit", "o último commit do Rafael", "den letzten Commit von Jonas",
// "последний коммит Саши"): the history finds it before its diff is read.
var authorsCommit = lazyre.New(`(\p{Lu}\p{Ll}+'s\s+(\p{Ll}+\s+){0,2}commits?|([Cc]ommits?|[Кк]оммит\p{L}*)\s+(de|do|da|del|von|vom|of|by|от)\s+\p{Lu}\p{Ll}+|[Кк]оммит\p{L}*\s+\p{Lu}\p{Ll}+)`)

// with adds concept x to out, in the order of c's concepts, when c has
// it and out does not.
func (c *Concepts) with(out []string, x string) []string {
	if c == nil || !slices.Contains(c.names, x) || slices.Contains(out, x) {
		return out
	}
	out = append(out, x)
	slices.SortStableFunc(out, func(a, b string) int { return slices.Index(c.names, a) - slices.Index(c.names, b) })
	return out
}

// codeName finds a name the task gives rather than words it says: a
// branch, a folder or an endpoint path without a file extension
// ("fix/tz-offset", "feature/export-csv", "/api/v2/report", "docs/") and
// a snake_case identifier ("data_cancelamento", "created_at"). Their
// words say which one, not what to do: "add a column data_cancelamento"
// names no data file, "a branch feature/export-csv" no CSV. A file
// name keeps its extension, which the folder rule leaves. So is a
// camelCase identifier ("formatDate", "calcTva") and a PascalCase one
// of three words or more ("LegacyPaymentClient"): "make formatDate take
// a time zone" formats nothing. Two words stay ("PostgreSQL",
// "GitHub"), since a product's name may name a tool.
var codeName = lazyre.New(`(^|[^A-Za-z0-9_./-])(([A-Za-z0-9_.-]*/)+[A-Za-z0-9_-]*|[A-Za-z0-9]+(_[A-Za-z0-9]+)+|[a-z][a-z0-9]*[A-Z][A-Za-z0-9]*|[A-Z][a-z0-9]+[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*)($|[^A-Za-z0-9_./-])`)

// snakeFile finds a file name whose stem is a snake_case identifier
// ("0042_add_index.sql", "export_pdf.py"): the stem is a name, as
// codeName's identifiers are, and the extension stays.
var snakeFile = lazyre.New(`(^|[^A-Za-z0-9_./-])[A-Za-z0-9]+(_[A-Za-z0-9]+)+(\.[A-Za-z0-9]+)`)

// versionNumber finds a project's version number named as such, in the
// eight languages.
var versionNumber = lazyre.New(`(?i)version number|n[úu]mero de vers[ãaió]o?n?|num[ée]ro de version|versionsnummer|номер версии|版本号|バージョン番号`)

// docFile finds the name of a text document ("MIGRATION.md",
// "notes-2024.txt"): its stem is a title, not what the task is about (a
// task that writes MIGRATION-3.0.md migrates nothing), and withoutNames
// reads it as a file. docName are the stems that do say what the file
// is.
var (
	docFile = lazyre.New(`(?i)(^|[^\p{L}\p{N}_./-])([\p{L}\p{N}_-]+(\.[\p{L}\p{N}_-]+)*)(\.(md|txt|rst|adoc))($|[^\p{L}\p{N}_])`)
	docName = lazyre.New(`(?i)^(readme|changelog|license|licence|contributing|notice|security|authors|todo)$`)
)

// withoutNames leaves out of task the names codeName finds, but for
// "CI/CD", which is continuous integration, not a path, and a test's
// camelCase name ("TestWebhookRetry", "testParsesDates"), which names a
// test.
func withoutNames(task string) string {
	task = snakeFile.ReplaceAllString(task, "$1 $3")
	task = docFile.ReplaceAllStringFunc(task, func(m string) string {
		sub := docFile.FindStringSubmatch(m)
		if docName.MatchString(sub[2]) {
			return m
		}
		return sub[1] + "file" + sub[4] + sub[6]
	})
	return codeName.ReplaceAllStringFunc(task, func(m string) string {
		sub := codeName.FindStringSubmatch(m)
		if strings.EqualFold(sub[2], "ci/cd") || isTestName(sub[2]) {
			return m
		}
		return sub[1] + " " + sub[5]
	})
}

// fileConcept is the concept of a file, readConcept that of reading.
const (
	fileConcept = "file"
	readConcept = "read"
)

// fileName finds the name of a file a task names ("go.mod",
// "config/app.yaml", "Dockerfile", "rollout.sh"): a task to plan or
// review that names one reads it, whatever its words (see Select). Data
// files (CSV, Parquet, spreadsheets) are left to the data concept.
var fileName = lazyre.New(`(?i)(^|[^\p{L}\p{N}_.-])([\p{L}\p{N}_-]+\.(ya?ml|json|toml|mod|sql|sh|py|go|js|ts|tsx|jsx|rb|java|kt|rs|md|txt|cfg|ini|conf|env|xml|gradle|properties|tf|proto|lock)|dockerfile|makefile|jenkinsfile|procfile|readme|changelog|docker-compose\.ya?ml)([^\p{L}\p{N}_]|$)`)

// language names a programming or shell language code is ported to,
// after the word that says so ("to Python", "pra Node", "nach Go",
// "на bash", "用 Go", "TypeScriptに").
var language = lazyre.New(`(?i)(^|[^\p{L}\p{N}_])(to|in|into|para|pra|pro|en|a|vers|nach|auf|на)\s+(python3?|node(\.?js)?|typescript|javascript|go|golang|rust|java|kotlin|bash|zsh|powershell|ruby|perl|php|c#|swift|scala|elixir|lua|dart)([^\p{L}\p{N}_]|$)|(python3?|node|typescript|javascript|go|golang|rust|java|kotlin|bash|ruby|perl|php)\s*(で|に|へ|版|重写|改写)|(用|到|成|为)\s*(python3?|node|typescript|javascript|go|golang|rust|java|kotlin|bash|ruby|perl|php)`)

// editVerb finds a change told to be made, an edit word said as a verb
// to do (not a change already made, "the fix", "my changes", "修改",
// "さっきの修正"): "fix the", "change it", "corrige", "ändere", "поправь",
// "改成", "修掉", "直して".
var editVerb = lazyre.New(`(?i)(^|[^\p{L}])((fix|change|update|set|edit|correct|adjust) (the|it|its|this|that|them|those|these)|(corrige|corrija|corrijam|arruma|arrume|conserta|conserte|altera|altere|muda|mude|troca|troque|arregla|arreglá|cambia|cambiá|modifica|modificá|ajusta|ajustá|corrigez|modifie|modifiez|remplace|remplacez|changez|ändere|änder|korrigiere|korrigier|behebe|beheb|fixe|setze|setz|stelle|поправь|поправьте|исправь|исправьте|измени|измените|поменяй|поменяйте|замени|замените|почини|почините)([^\p{L}]|$))|改成|改为|改掉|修掉|修好|修完|改完|删掉|删完|标成|换成|直して|変えて|修正して|書き換えて`)

// runtimeVersion finds a language or runtime named with its version
// ("Java 17", "JDK 21", "Go 1.23", "Node 20", "Python 3.12", "jdk17").
var runtimeVersion = lazyre.New(`(?i)(^|[^\p{L}\p{N}_])(java|jdk|go|golang|node|nodejs|node\.js|python|php|ruby|kotlin|dotnet|\.net)\s?v?\d+(\.\d+)?([^\p{L}\p{N}_]|$)`)

// sourceFile finds the name of a source file ("cron.go",
// "LoginViewModel.kt", "src/server.rs").
var sourceFile = lazyre.New(`(?i)[\p{L}\p{N}_-]\.(go|py|js|ts|tsx|jsx|rb|java|kt|rs|swift|c|cc|cpp|h|cs|php|scala)([^\p{L}\p{N}_]|$)`)

// dirName finds a folder's name written with its closing slash
// ("deploy/", "data/events/", "/data/clickstream/").
var dirName = lazyre.New("(^|[\\s(«\"'`])[\\p{L}\\p{N}_.-]*(/[\\p{L}\\p{N}_.-]+)*/($|[\\s)»\"'`,.;:?!，。、？])")

// ciState finds words of how a pipeline's runs went: red, green,
// failing, passing, broken, slow, flaky, stuck, a job, its status, its
// result or its time.
// It matches inside words too ("password" holds "pass"): a match only
// keeps the pipeline's status among a plan's concepts, as before.
var ciState = lazyre.New(`(?i)red|green|yellow|fail|pass|pasa|broke|break|slow|flak|job|status|statut|estado|état|etat|zustand|состояни|状态|状況|状態|timeout|time out|超时|没打出来|minut|hour|stund|часа|часов|分钟|時間|takes|braucht|dauer|rouge|vert|jaune|échou|echou|cass|lent|vermelh|verde|amarel|falh|quebr|demor|rojo|amarill|fall|romp|tard|rot|grün|gelb|fehl|kaputt|langsam|dauert|красн|зелён|желт|упал|пада|слома|медлен|долго|挂|失败|红|绿|黄|通过|过不了|慢|落ち|赤|緑|黄色|通ら|失敗|遅|タイムアウト|通って|結果|结果|result|résultat|resultat|ergebnis|результат|hora|heure|corriendo|rodando|running|läuft|tourne|\bhang|stuck|colgad|atascad|travad|bloqué|coincé|hängt|завис|卡住|卡在|止まって|固まって|last run|latest run|просел|просад|regress|джоб|キュー待ち`)

// staticAnalysis finds "static analysis" in the eight languages.
var staticAnalysis = lazyre.New(`(?i)static analysis|analyse statique|an[aá]lisis est[aá]tico|an[aá]lise est[aá]tica|statische analyse|статическ\p{L}* анализ\p{L}*|静态分析|静的解析`)

// httpConcept is the concept of the web.
const httpConcept = "http"

// webAddress finds a URL, or a host name under a common top-level
// domain; a file name ("package.json", "config.go") is not one.
var webAddress = lazyre.New(`(?i)\bhttps?://|(^|[\s(<])(www\.)?[a-z0-9][a-z0-9-]*(\.[a-z0-9-]+)*\.(com|org|net|io|dev|app|cloud|ai|co|ru|jp|cn|de|fr|es|br|pt|uk|eu)(/[^\s]*)?([\s)>,;:!?]|\.?$)`)

// recorded leaves the diff concept out of an act task's concepts when the
// task also names a commit or a pull request: the changes such a task
// names ("commit the changes", "open a PR with my changes") are what the
// commit or the pull request records, not a diff to show. A task to
// review or plan keeps it: "review the last commit" asks for its diff.
//
// The other way round, a pull request a review task names, and not its
// pipeline, is reviewed through its diff: "schau dir den Merge Request
// an" wants the diff, not a tool that opens one. So are a commit, a
// branch or code a review task names, and a pull request whose pipeline
// it names too, when the task asks for a review itself (review is set:
// "review PR #57 and see if CI passed") or names no check (CI, lint,
// tests, a build): "is the pipeline of PR 412 green?" asks how the
// checks went, not for the changes. And what a task reads
// beside the web is the page: "read Stripe's docs page" wants the tool
// that fetches it, not one that reads files. SQL a change under review
// holds ("review the PR, especially the SQL") is code to read, not a
// database to query. manifests is whether the task names a package
// manifest (go.mod, package.json...).
func recorded(concepts []string, mode string, review, summarizes, manifests bool) []string {
	out := slices.Clone(concepts)
	has := func(x string) bool { return slices.Contains(out, x) }
	drop := func(x string) { out = slices.DeleteFunc(out, func(y string) bool { return y == x }) }
	switch {
	case mode == "act" && has("diff") && (has("commit") || has("pullrequest")) && !summarizes:
		drop("diff")
	case mode == "review" && !has("diff") && (has("pullrequest") && !has("ci") || (has("pullrequest") || has("commit") || has("branch") || has(codeConcept)) && (review || !has("ci") && !has("lint") && !has("test") && !has("build"))):
		out = append(out, "diff")
		if !has("ci") {
			// The pull request is read through its diff; its checks,
			// which the task does not name, are not asked for.
			drop("pullrequest")
		}
	}
	if mode == "review" && has("database") && (has("diff") || has("commit") || has("pullrequest")) {
		drop("database")
	}
	if mode == "act" && (has("commit") || has("pullrequest")) && has("edit") && !slices.ContainsFunc(out, func(x string) bool { return slices.Contains(fixedConcepts, x) }) {
		// The fix a task commits or opens a pull request with is made
		// ("commit the timezone patch sitting in the working tree",
		// "さっき直した分、コミットして"): unless the task names what is
		// still to fix (a test, a build, a bug, a file), no edit is left.
		drop("edit")
	}
	if has(newConcept) {
		drop(newConcept)
		if !has(createConcept) {
			out = append(out, createConcept)
		}
	}
	if has(httpConcept) && has("read") {
		drop("read")
	}
	if mode != "act" && has("ci") && has("test") && !has("run") {
		// The tests a task to plan or review names beside the pipeline
		// are the ones it ran ("is the pipeline green? if not, is the
		// failing test flaky?"): the CI status shows them.
		drop("test")
	}
	if mode != "act" && has("search") && has("database") && !has("column") && !has("migration") && !has("data") && !has("list") {
		// Where the code does something with the database ("où est-ce
		// qu'on configure le timeout de connexion à postgres ?",
		// "数据库连接是在哪里初始化的？") is searched for in the code; no
		// row is queried.
		drop("database")
	}
	if has("data") && has("read") && !has(fileConcept) {
		// What a task reads beside a data file or data set is that data,
		// which the data tool loads ("sample_orders.csv を読み込んで、列の
		// 型を見せて").
		drop("read")
	}
	if mode == "plan" && (has(httpConcept) || has("docs")) && has("diff") && !has("branch") && !has("commit") {
		// What a plan compares beside the web or documentation is
		// pages and the code ("compare their guide with what we have
		// in handlers/"), not a diff of the repository.
		drop("diff")
	}
	if mode == "act" && has("list") && slices.ContainsFunc(out, func(x string) bool { return x != "list" && slices.Contains(placed, x) }) {
		// A folder a task to act on names beside what it does there
		// ("format every .py file in the scripts folder") is where,
		// not a listing.
		drop("list")
	}
	if mode == "act" && has("ci") && (has("format") || has("lint")) {
		// The pipeline a task to format or lint names is why ("the CI's
		// black complained"): the formatter or linter does the work.
		drop("ci")
	}
	if has("docker") && has("dependency") && !manifests {
		// What a task updates, bumps or installs beside a container is
		// the image's or the compose file's ("обнови Dockerfile на
		// python:3.12-slim", "bump its memory limit in
		// docker-compose.yml", "apt-get install"): an edit, not a
		// package of the project. Unless the task names the project's
		// manifest: "镜像扫描报了漏洞，把 go.mod 里这个依赖升到最新版" bumps a
		// package an image scan found.
		drop("dependency")
		if mode == "act" && !has("edit") {
			out = append(out, "edit")
		}
	}
	if has("docker") && has("database") && !has("column") && !has("migration") {
		// A database beside a container is the container's ("the
		// postgres container keeps restarting"), not one to query.
		drop("database")
	}
	if has("database") && has("column") && !has("data") {
		// A column of a table is the database's, not a data file's: to
		// look at ("how is the orders table laid out? which columns...")
		// it is queried; to add, rename or drop one is a migration.
		drop("column")
		if mode == "act" && !has("migration") {
			out = append(out, "migration")
		}
	}
	if mode == "act" && has("database") && has("create") && !has("data") && !has("migration") && !has("file") {
		// What a task adds to a table is a migration: "add a nullable
		// archived_at timestamp to the projects table".
		out = append(out, "migration")
	}
	if mode == "act" && has("migration") && has(createConcept) && !has(fileConcept) {
		// What a migration adds ("给订单表的 created_at 加个索引") is the
		// migration's to write, not a new file, in a table it does not
		// query.
		drop(createConcept)
		drop("database")
	}
	if mode == "review" {
		// The code a review names is the change under review ("does the
		// new code pass the linter?"), not code to search.
		drop(codeConcept)
		if has("edit") && !has("lint") && !has("test") {
			// ... and so is the change a review names in a word of
			// editing ("昨日マージされたキャッシュ周りの変更をレビュー"):
			// a review makes none. Beside the linter or the tests, such
			// a word is what they may find to fix ("скажи, что стоит
			// исправить").
			drop("edit")
			if !has("diff") {
				out = append(out, "diff")
			}
		}
	}
	return out
}

// isTestName reports whether name is a test function's camelCase name:
// "Test" or "test" followed by a capital letter.
func isTestName(name string) bool {
	return len(name) > 4 && (name[:4] == "Test" || name[:4] == "test") && name[4] >= 'A' && name[4] <= 'Z'
}

// keywordPrefix starts the name of a capability's keyword concept.
const keywordPrefix = "#"

// IsKeywords reports whether concept is a tool's or skill's keywords
// read as a concept of its own ("#" and its name; see ParseSetup), not
// a built-in concept nor one of the setup's concepts:.
func (c *Concepts) IsKeywords(concept string) bool {
	return strings.HasPrefix(concept, keywordPrefix)
}

// keywordTerms returns the keyword concepts of caps: for each tool and
// skill most of whose keywords no concept of base names, those keywords
// as a concept of its own, named keywordPrefix and its name.
//
// A catalog's keywords are its authors' words for each tool, often in
// several languages ("refund, reembolso, remboursement, 退款"). The
// built-in concepts, a software agent's, know those of a tool that runs
// tests or reads logs; a keyword concept makes the others count as
// concepts do: a task that says one, in any of its forms (a stem, a slip
// of a letter, a Chinese or Japanese term anywhere in the text), shares
// the concept with the tool. A tool most of whose keywords base already
// names gets none, so that a catalog the built-in concepts cover reads
// as it did (measured: TestRankerCatalogs, TestFitRanker).
//
// glossKeywords then adds each such keyword's words in the other
// languages (see glossary): an English catalog's "printer" is found in
// a task that says "Drucker" or "打印机".
func keywordTerms(base *Concepts, caps ...[]Capability) map[string][]string {
	out := map[string][]string{}
	for _, list := range caps {
		for _, c := range list {
			var terms []string
			for _, k := range c.Keywords {
				k = strings.ToLower(strings.TrimSpace(k))
				if k != "" && len(base.Of(k)) == 0 && !slices.Contains(terms, k) {
					terms = append(terms, k)
				}
			}
			if len(terms) > 0 && 2*len(terms) >= len(c.Keywords) {
				out[keywordPrefix+c.Name] = terms
			}
		}
	}
	return out
}

// glossKeywords returns, for each keyword concept of kw (see
// keywordTerms), the words g gives its keywords in the other languages,
// and records them on its capability among caps (see
// Capability.Glossary).
func glossKeywords(kw map[string][]string, g *glossary, caps ...[]Capability) map[string][]glossTerm {
	glossed := map[string][]glossTerm{}
	for _, list := range caps {
		for i := range list {
			c := &list[i]
			terms, ok := kw[keywordPrefix+c.Name]
			if !ok {
				continue
			}
			if c.glossed = g.extend(terms); len(c.glossed) > 0 {
				glossed[keywordPrefix+c.Name] = c.glossed
			}
		}
	}
	return glossed
}

// The parts of a compound noun compoundHead reads.
const (
	// compoundHeadRunes is the fewest letters of its last part, and of
	// the term that names it.
	compoundHeadRunes = 5
	// compoundModifierRunes is the fewest letters before the last part.
	compoundModifierRunes = 3
	// compoundEndingBytes is the longest ending the last part may have
	// after a term that starts it ("rechnung" in "rechnungen").
	compoundEndingBytes = 3
)

// compoundHead returns, in the order of c.words, the terms of keyword
// concepts (a catalog's own words, see keywordTerms) that the last part
// of w names, a German noun of several words written as one:
// "firmenrechnungen" (Firmenrechnungen) is a "rechnung" and
// "einzelzimmer" a "zimmer". The part is the longest of at least
// compoundHeadRunes letters, after at least compoundModifierRunes, that
// a term of as many letters names as named does, whole or as a stem with
// an ending of at most compoundEndingBytes left. The built-in concepts'
// words are left out: their German words were written to be matched as
// they are, and their short heads ("daten", "format", "paket") name the
// wrong thing in "Zugangsdaten" (credentials) or "Passwortformat".
// buf is reused for the result.
func (c *Concepts) compoundHead(w string, buf []int32) []int32 {
	rs := []rune(w)
	for p := compoundModifierRunes; p+compoundHeadRunes <= len(rs); p++ {
		h := string(rs[p:])
		buf = slices.DeleteFunc(c.named(h, buf), func(k int32) bool {
			t := &c.words[k]
			return !strings.HasPrefix(t.concept, keywordPrefix) ||
				t.term != h && (len(h)-len(t.term) > compoundEndingBytes || utf8.RuneCountInString(t.term) < compoundHeadRunes)
		})
		if len(buf) > 0 {
			return buf
		}
	}
	return buf
}

// capitalized are the words of text written with a capital and then
// some lower-case letters, as embed.Words gives them: in German, its
// nouns (and the first word of each sentence). A word in capitals alone
// (an acronym) is not one of them.
func capitalized(text string) map[string]bool {
	out := map[string]bool{}
	for _, f := range strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if r, _ := utf8.DecodeRuneInString(f); !unicode.IsUpper(r) || strings.ToUpper(f) == f {
			continue
		}
		for _, w := range embed.Words(f) {
			out[w] = true
		}
	}
	return out
}

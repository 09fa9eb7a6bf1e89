package layered

import (
	"fmt"
	"maps"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/embed"
	"github.com/tessera-dev/tessera/internal/hanfold"
)

// Associations carry what a task's situation needs to the tool that
// deals with it, in the catalog's own words, in any language. A task
// says what happened ("the armchair arrived scratched", "la señora se
// cayó anoche", "账单重复扣款"); the tool that deals with it names what
// it does ("warranty claim", "incident report", "payment"). The
// glossary gives an everyday English word of work (a headword) its
// words in the other languages; defaults/associations.tsv gives each
// headword the words a tool for it is likely to name ("scratched":
// damage, defect, repair, replacement, complaint, warranty). A task's
// headwords, found in whichever language it is written in, then tell
// the ranker two things of each tool:
//
//   - "gloss": how much of the weight of the task's headwords the tool
//     names itself, in its name, keywords or description: a task in
//     Russian finds an English description's words, as "words" (the
//     lexicon) finds them in a task written in the catalog's language;
//   - "assoc": how much of the weight of the headwords' associated words
//     the tool names: "scratched" finds the tool whose description says
//     "warranty".
//
// Both weigh a word by how few of the catalog's tools name it, as the
// lexicon does, and both are dense features of the ranker, which learns
// how far to trust them; the rules do not read them.
type associations struct {
	// heads are the headwords, sorted; items holds each one's associated
	// words, in the order of heads, as written (see parseAssociations).
	heads []string
	items [][]string
	// stems are, for each headword, the stems of its words (lexStem) a
	// tool must name all of to name it, and for each of its associated
	// words those of that word's, in the order of items.
	self  [][]string
	stems [][][]string
	// byFirst are, by the first stem of each, the headwords (item -1)
	// and associated words a tool may name, in the order of heads and
	// items.
	byFirst map[string][]assocRef
	// gloss gives each headword its words in the other languages, read
	// the first time a task in one of them asks; english finds the
	// headwords in a task in English, laid out the first time one asks.
	gloss   func() (*glossary, error)
	english func() *englishFinder
}

// assocRef is headword heads[head] itself (item -1), or its associated
// word items[head][item].
type assocRef struct {
	head, item int
}

// maxAssocLine bounds a line of the associations file, in bytes.
const maxAssocLine = 4096

// builtinAssociations are the built-in associations, read once a
// process, when a setup's tools are first indexed.
var builtinAssociations = sync.OnceValues(func() (*associations, error) {
	data, err := defaults.ReadFile("defaults/associations.tsv")
	if err != nil {
		return nil, err
	}
	items, err := parseAssociations("associations.tsv", data)
	if err != nil {
		return nil, err
	}
	return newAssociations(items, builtinGlossary), nil
})

// parseAssociations reads data, an associations file named name: a line
// per English headword, a tab, and its associated words separated by
// semicolons. Lines starting with "#" and blank lines are skipped. It
// returns each headword's words, in lower case, each once, at least
// one; an error names the line and what to do about it.
func parseAssociations(name string, data []byte) (map[string][]string, error) {
	out := map[string][]string{}
	err := eachHeadLine(name, data, maxAssocLine, "an English headword, a tab, and its associated words separated by semicolons", func(line int, head, words string) error {
		head = plain(head)
		if _, dup := out[head]; dup {
			return fmt.Errorf("%s:%d: %q is listed twice: merge its lines", name, line, head)
		}
		list := make([]string, 0, strings.Count(words, ";")+1)
		for w := range strings.SplitSeq(words, ";") {
			if w = plain(w); w != "" && w != head && !slices.Contains(list, w) {
				list = append(list, w)
			}
		}
		if len(list) == 0 {
			return fmt.Errorf("%s:%d: %q has no associated word: list some after its tab, or remove the line", name, line, head)
		}
		out[head] = list
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// plain is w in lower case, its words one space apart, as
// strings.Fields splits them: w itself when it is written so already.
func plain(w string) string {
	w = strings.TrimSpace(w)
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c >= 0x80 || 'A' <= c && c <= 'Z' || c < ' ' || c == ' ' && w[i+1] == ' ' {
			return strings.Join(strings.Fields(strings.ToLower(w)), " ")
		}
	}
	return w
}

// newAssociations indexes items (by headword, as parseAssociations
// returns them) by the stems of their words; gloss gives a headword's
// words in the other languages.
func newAssociations(items map[string][]string, gloss func() (*glossary, error)) *associations {
	// About four first stems a headword, each of one or two words.
	a := &associations{heads: slices.Sorted(maps.Keys(items)), byFirst: make(map[string][]assocRef, 4*len(items)), gloss: gloss}
	a.english = sync.OnceValue(func() *englishFinder { return newEnglishFinder(a.heads) })
	a.items, a.self, a.stems = make([][]string, len(a.heads)), make([][]string, len(a.heads)), make([][][]string, len(a.heads))
	for i, h := range a.heads {
		a.items[i] = items[h]
		a.self[i] = assocStems(h)
		if len(a.self[i]) > 0 {
			a.byFirst[a.self[i][0]] = append(a.byFirst[a.self[i][0]], assocRef{i, -1})
		}
		a.stems[i] = make([][]string, len(items[h]))
		for j, w := range items[h] {
			if st := assocStems(w); len(st) > 0 {
				a.stems[i][j] = st
				a.byFirst[st[0]] = append(a.byFirst[st[0]], assocRef{i, j})
			}
		}
	}
	return a
}

// assocStems are the stems of w's words the lexicon counts (see
// lexStem), each once.
func assocStems(w string) []string {
	var out []string
	add := func(x string) {
		if s, ok := lexStem(x); ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if !isPlain(w) {
		for _, x := range embed.Words(w) {
			add(x)
		}
		return out
	}
	// A word of ASCII lower-case letters and digits, words one space or
	// hyphen apart: its words are slices of it, as embed.Words gives them.
	out = make([]string, 0, 1+strings.Count(w, " ")+strings.Count(w, "-"))
	for x := range strings.FieldsFuncSeq(w, func(r rune) bool { return r == ' ' || r == '-' }) {
		add(x)
	}
	return out
}

// isPlain reports whether w holds only ASCII lower-case letters, digits,
// spaces and hyphens.
func isPlain(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == ' ' || c == '-') {
			return false
		}
	}
	return true
}

// englishForms are the forms a task in English may write headword h in:
// h, and, for its last word, the plural and the verb's forms ("leaks",
// "leaked", "leaking"; "delays"; "replies", "replied"; "charges",
// "charged", "charging"), each found as a whole word ("pass", never
// "password").
func englishForms(h string) []string {
	i := strings.LastIndexByte(h, ' ') + 1
	lead, w := h[:i], h[i:]
	forms := []string{w, w + "s", w + "ed", w + "ing"}
	switch {
	case strings.HasSuffix(w, "e"):
		forms = append(forms, w+"d", w[:len(w)-1]+"ing")
	case strings.HasSuffix(w, "y") && len(w) > 2 && !strings.ContainsRune("aeiou", rune(w[len(w)-2])):
		forms = append(forms, w[:len(w)-1]+"ies", w[:len(w)-1]+"ied")
	case strings.HasSuffix(w, "s"), strings.HasSuffix(w, "x"), strings.HasSuffix(w, "ch"), strings.HasSuffix(w, "sh"):
		forms = append(forms, w+"es")
	}
	for j, f := range forms {
		forms[j] = lead + f
	}
	return forms
}

// assocIndex is associations laid out for one catalog's tools: the
// headwords any tool names, itself or by an associated word, how to
// find them in a task, which tools name each and each associated word,
// and how much each weighs (by how few tools name it).
type assocIndex struct {
	a *associations
	n int
	// heads are the indexes into a.heads of the headwords that can move
	// a tool; finders find them in a task in a language other than
	// English, one for each, laid out the first time a task of that
	// language asks (see finder).
	heads   []int
	finders [len(langNames)]func() (*Concepts, error)
	// asked counts the tasks of each language headwords has read: the
	// first reads only the glossary words it may hold (see finderFor).
	asked [len(langNames)]atomic.Int32
	// direct are the tools naming each headword; via, for each
	// headword, its associated words any tool names, with those tools.
	direct map[int][]int
	via    map[int][]assocHit
	// hidf is each headword's weight, widf each associated word's.
	hidf map[int]float64
	widf map[string]float64
}

// assocHit is an associated word and the tools that name it.
type assocHit struct {
	text  string
	tools []int
}

// newAssocIndex indexes a's headwords and associated words by the tools
// of caps that name them: all of their words, in their names, keywords
// or descriptions.
func newAssocIndex(a *associations, caps []Capability) *assocIndex {
	x := &assocIndex{a: a, n: len(caps), direct: map[int][]int{}, via: map[int][]assocHit{}, hidf: map[int]float64{}, widf: map[string]float64{}}
	// The tools naming each stem, in order.
	stems := map[string][]int{}
	for i := range caps {
		for _, w := range embed.Words(caps[i].nameAndKeywords() + " " + caps[i].Description) {
			if s, ok := lexStem(w); ok && !slices.Contains(stems[s], i) {
				stems[s] = append(stems[s], i)
			}
		}
	}
	naming := func(st []string) []int {
		out := stems[st[0]]
		for _, s := range st[1:] {
			if len(out) == 0 {
				break
			}
			out = slices.DeleteFunc(slices.Clone(out), func(t int) bool { return !slices.Contains(stems[s], t) })
		}
		return out
	}
	weight := func(df int) float64 { return math.Log(1 + float64(x.n)/float64(df)) }
	// Only the words whose first stem some tool names may be named.
	var refs []assocRef
	for s := range stems {
		refs = append(refs, a.byFirst[s]...)
	}
	slices.SortFunc(refs, func(p, q assocRef) int {
		if p.head != q.head {
			return p.head - q.head
		}
		return p.item - q.item
	})
	for _, r := range refs {
		if r.item < 0 {
			if tools := naming(a.self[r.head]); len(tools) > 0 {
				x.direct[r.head] = tools
				x.hidf[r.head] = weight(len(tools))
			}
			continue
		}
		if tools := naming(a.stems[r.head][r.item]); len(tools) > 0 {
			w := a.items[r.head][r.item]
			x.via[r.head] = append(x.via[r.head], assocHit{w, tools})
			x.widf[w] = weight(len(tools))
		}
	}
	for _, r := range refs {
		// refs are in the order of heads.
		if (x.direct[r.head] != nil || x.via[r.head] != nil) && (len(x.heads) == 0 || x.heads[len(x.heads)-1] != r.head) {
			x.heads = append(x.heads, r.head)
		}
	}
	for i := range x.finders {
		x.finders[i] = sync.OnceValues(func() (*Concepts, error) { return x.finder(1 << i) })
	}
	return x
}

// finder returns the concepts that find x's headwords in a task written
// in language l, not English: a concept per headword, and its glossary
// words of l, every term found naming its headword (see Concepts.every).
func (x *assocIndex) finder(l langSet) (*Concepts, error) {
	return x.finderOf(l, nil)
}

// finderOf is finder with only the glossary words keep takes (all, for
// a nil keep).
func (x *assocIndex) finderOf(l langSet, keep func(string) bool) (*Concepts, error) {
	g, err := x.a.gloss()
	if err != nil {
		return nil, err
	}
	c := &Concepts{terms: map[string]bool{}, every: true}
	for _, i := range x.heads {
		h := x.a.heads[i]
		c.names = append(c.names, h)
		for _, t := range g.ofInWhere(h, l, keep) {
			c.addTerm(h, t.word, 0)
		}
	}
	return c.extend(nil, nil), nil
}

// finderFor is the finder of language l (an index into langNames) for
// task: the first task of the language x reads gets one of only the
// glossary words task may hold (see mayHold), laid out in a fraction of
// the time; the second lays the whole out, once, for every task after.
// Both find the same headwords in task (TestFinderForTask). A process
// that assembles once (the CLI) so never lays out the whole.
func (x *assocIndex) finderFor(l int, task string) (*Concepts, error) {
	if x.asked[l].Add(1) > 1 {
		return x.finders[l]()
	}
	return x.finderOf(1<<l, mayHold(task))
}

// mayHold returns whether a glossary word (as a glossary line writes it)
// may be found in task: a word of a letter script only if task has a
// word that starts with its first letter, as Words folds it (a term
// names a word it is, or starts), and a Chinese or Japanese one only if
// task holds its first character, as written or simplified (such a term
// is found anywhere). A word whose first character Words drops is
// taken.
func mayHold(task string) func(string) bool {
	first, all := map[rune]bool{}, map[rune]bool{}
	for _, w := range embed.Words(apartScripts(task)) {
		r, _ := utf8.DecodeRuneInString(w)
		first[r] = true
	}
	lower := strings.ToLower(task)
	for _, r := range lower + hanfold.Simplified(lower) {
		all[r] = true
	}
	folded := map[rune]rune{}
	fold := func(r rune) rune {
		f, ok := folded[r]
		if !ok {
			f = -1
			if ws := embed.Words(string(r)); len(ws) > 0 {
				f, _ = utf8.DecodeRuneInString(ws[0])
			}
			folded[r] = f
		}
		return f
	}
	return func(w string) bool {
		w = strings.TrimPrefix(strings.TrimSpace(w), "=")
		r, _ := utf8.DecodeRuneInString(w)
		if hasIdeograph(w) {
			s, _ := utf8.DecodeRuneInString(hanfold.Simplified(string(r)))
			return all[unicode.ToLower(r)] || all[s]
		}
		f := fold(r)
		return f < 0 || first[f]
	}
}

// latin are the languages written in Latin letters: a task whose
// language is not known is one of them (see taskLanguage).
var latin = []langSet{langEN, langPT, langES, langFR, langDE}

// headwords are the headwords of x task names (indexes into a.heads, in
// order), in the language it is written in, or in any language of
// Latin letters when that is not known.
func (x *assocIndex) headwords(task string) ([]int, error) {
	if x == nil {
		return nil, nil
	}
	words := embed.Words(task)
	langs := latin
	if l := taskLanguage(task, words); l != 0 {
		langs = []langSet{l}
	}
	var found []int
	for _, l := range langs {
		if l == langEN {
			for _, h := range x.a.english().find(words, nil) {
				if x.direct[h] != nil || x.via[h] != nil {
					found = append(found, h)
				}
			}
			continue
		}
		c, err := x.finderFor(bits.TrailingZeros8(uint8(l)), task)
		if err != nil {
			return nil, err
		}
		for _, h := range c.of(task, true) {
			i, _ := slices.BinarySearch(x.a.heads, h)
			found = append(found, i)
		}
	}
	slices.Sort(found)
	return slices.Compact(found), nil
}

// names are the headwords heads (indexes into a.heads) as words.
func (x *assocIndex) names(heads []int) []string {
	if len(heads) == 0 {
		return nil
	}
	out := make([]string, len(heads))
	for i, h := range heads {
		out[i] = x.a.heads[h]
	}
	return out
}

// englishFinder finds headwords in a task in English: each by its
// words as embed.Words gives them, indexed by the first, the last
// written in any of its forms (see englishForms).
type englishFinder struct {
	byFirst map[string][]englishHead
}

// englishHead is a headword's words and its index.
type englishHead struct {
	words []string
	head  int
}

// newEnglishFinder indexes heads.
func newEnglishFinder(heads []string) *englishFinder {
	f := &englishFinder{byFirst: make(map[string][]englishHead, len(heads))}
	for i, h := range heads {
		ws := []string{h}
		if !isWord(h) {
			ws = embed.Words(h)
		}
		if len(ws) > 0 {
			f.byFirst[ws[0]] = append(f.byFirst[ws[0]], englishHead{ws, i})
		}
	}
	return f
}

// isWord reports whether w is a word as embed.Words gives it, in ASCII:
// lower-case letters and digits only.
func isWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9') {
			return false
		}
	}
	return w != ""
}

// bases appends to out the words w may be a form of (see englishForms):
// w, and w with an ending taken off or changed ("replied", "reply"), or
// the base of an irregular past ("sent", "send").
func bases(w string, out []string) []string {
	out = append(out, w)
	if b, ok := irregularPast[w]; ok {
		out = append(out, b)
	}
	if b := undoubled(w); b != "" {
		out = append(out, b)
	}
	for _, e := range [...]struct{ end, base string }{{"s", ""}, {"es", ""}, {"d", ""}, {"ed", ""}, {"ing", ""}, {"ing", "e"}, {"ies", "y"}, {"ied", "y"}} {
		if len(w) > len(e.end) && strings.HasSuffix(w, e.end) {
			out = append(out, w[:len(w)-len(e.end)]+e.base)
		}
	}
	return out
}

// irregularPast are the past forms of irregular verbs a request to a
// business's tools often says ("sent it back", "we ran out", "told
// her"), each with its base. A form with another common sense ("left",
// "found" as in founded, "lost" as in lost property) is not among them.
var irregularPast = map[string]string{
	"bought": "buy", "brought": "bring", "broke": "break", "broken": "break",
	"gave": "give", "given": "give", "got": "get", "gotten": "get",
	"held": "hold", "kept": "keep", "made": "make", "paid": "pay",
	"ran": "run", "rang": "ring", "sent": "send", "sold": "sell",
	"spent": "spend", "spoke": "speak", "spoken": "speak", "took": "take",
	"taken": "take", "told": "tell", "went": "go", "gone": "go",
	"wrote": "write", "written": "write", "withdrew": "withdraw",
	"withdrawn": "withdraw", "forgot": "forget", "forgotten": "forget",
	"knew": "know", "known": "know", "threw": "throw", "thrown": "throw",
}

// undoubled is the base of w when it is a verb's form that doubled its
// last consonant ("topped", "running": "top", "run"), or "".
func undoubled(w string) string {
	for _, end := range [...]string{"ed", "ing"} {
		b, ok := strings.CutSuffix(w, end)
		if n := len(b); ok && n >= 3 && b[n-1] == b[n-2] && !strings.ContainsRune("aeiouwxy", rune(b[n-1])) && strings.ContainsRune("aeiou", rune(b[n-3])) {
			return b[:n-1]
		}
	}
	return ""
}

// formOf reports whether w is a form of word (see bases).
func formOf(w, word string) bool {
	return w == word || irregularPast[w] == word || undoubled(w) == word || slices.Contains(englishForms(word), w)
}

// objectPronouns may stand between the two words of a phrasal verb
// ("let her know", "send it back", "pick them up").
var objectPronouns = []string{"it", "him", "her", "them", "me", "us", "this", "that", "these", "those", "everyone", "everybody"}

// find appends to found the headwords words (a task's, as embed.Words
// gives them) name: a headword of one word in any of its forms; of more,
// its first word in any of its forms ("picked up"), then the others as
// written, but the last, in any of its forms; of two, with an object
// pronoun between them, too ("let her know").
func (f *englishFinder) find(words []string, found []int) []int {
	var bs []string
	for i, w := range words {
		bs = bases(w, bs[:0])
		for j, b := range bs {
			if j > 0 && (b == w || !formOf(w, b)) {
				continue
			}
			for _, e := range f.byFirst[b] {
				if e.follows(words[i+1:]) {
					found = append(found, e.head)
				}
			}
		}
	}
	return found
}

// follows reports whether rest, the words of a task after a form of e's
// first word, go on with e's others (see find).
func (e englishHead) follows(rest []string) bool {
	n := len(e.words) - 1
	switch {
	case n == 0:
		return true
	case len(rest) >= n && slices.Equal(rest[:n-1], e.words[1:n]) && formOf(rest[n-1], e.words[n]):
		return true
	}
	return n == 1 && len(rest) >= 2 && slices.Contains(objectPronouns, rest[0]) && formOf(rest[1], e.words[1])
}

// explain says which of heads (a task's headwords) tool t names
// ("invoice, water"), and which of their associated words ("leak:
// plumber, repair; overdue: payment"), for a selection's report: at most
// four headwords each, empty when it names none.
func (x *assocIndex) explain(heads []int, t int) (named, associated string) {
	if x == nil {
		return "", ""
	}
	const most = 4
	var direct, via []string
	for _, h := range heads {
		if slices.Contains(x.direct[h], t) && len(direct) < most {
			direct = append(direct, x.a.heads[h])
		}
	}
	last := -1 // the headword whose words via ends with
	x.eachAssociated(heads, func(h int, hit assocHit) {
		switch {
		case !slices.Contains(hit.tools, t):
		case h == last:
			via[len(via)-1] += ", " + hit.text
		case len(via) < most:
			via, last = append(via, x.a.heads[h]+": "+hit.text), h
		}
	})
	return strings.Join(direct, ", "), strings.Join(via, "; ")
}

// eachAssociated calls f with each associated word of heads (a task's
// headwords) any tool names, once, the first time a headword's list
// holds it, and that headword, in the order of heads.
func (x *assocIndex) eachAssociated(heads []int, f func(h int, hit assocHit)) {
	var seen []string
	for _, h := range heads {
		for _, hit := range x.via[h] {
			if !slices.Contains(seen, hit.text) {
				seen = append(seen, hit.text)
				f(h, hit)
			}
		}
	}
}

// match returns, for each tool, the share of the weight of heads (a
// task's headwords, see headwords) that the tool names (gloss), and the
// share of the weight of their associated words (each counted once)
// that the tool names (assoc): each 0 to 1, and 0 for every tool when
// the task's headwords name nothing of the catalog.
func (x *assocIndex) match(heads []int) (gloss, assoc []float64) {
	if x == nil {
		return nil, nil
	}
	gloss, assoc = make([]float64, x.n), make([]float64, x.n)
	var gTotal, aTotal float64
	for _, h := range heads {
		if tools, ok := x.direct[h]; ok {
			w := x.hidf[h]
			gTotal += w
			for _, t := range tools {
				gloss[t] += w
			}
		}
	}
	x.eachAssociated(heads, func(_ int, hit assocHit) {
		w := x.widf[hit.text]
		aTotal += w
		for _, t := range hit.tools {
			assoc[t] += w
		}
	})
	for i := range x.n {
		if gTotal > 0 {
			gloss[i] /= gTotal
		}
		if aTotal > 0 {
			assoc[i] /= aTotal
		}
	}
	return gloss, assoc
}

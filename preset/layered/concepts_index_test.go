package layered

import (
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/embed"
)

// readBuiltinConcepts are the built-in concepts.
func readBuiltinConcepts(t testing.TB) *Concepts {
	t.Helper()
	c, err := builtinConcepts()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkIndex checks that the terms the index finds for w, and the term
// correct writes for it (a word term's, else a word of a term of
// several words), are those a scan of every term finds.
func checkIndex(t *testing.T, c *Concepts, w string) {
	var want []int32
	for k, term := range c.words {
		if w == term.term || !c.terms[w] && !term.exact && len(term.term) >= 4 && strings.HasPrefix(w, term.term) {
			want = append(want, int32(k))
		}
	}
	if got := c.named(w, nil); !slices.Equal(got, want) {
		t.Fatalf("%q: the index names terms %v, a scan %v", w, got, want)
	}
	fixed := w
	if utf8.RuneCountInString(w) >= minTypoLen && !c.names1(w) {
		for _, term := range c.words {
			if utf8.RuneCountInString(term.term) >= minTypoLen && typo(w, term.term) {
				fixed = term.term
				break
			}
		}
	}
	if fixed == w && utf8.RuneCountInString(w) >= minTypoLen && !c.names1(w) {
		// No word term's slip: the first word of a term of several
		// words, in the order of the terms, it is a slip of.
	runs:
		for _, r := range c.runs {
			for _, rw := range r.words {
				if utf8.RuneCountInString(rw) >= minTypoLen && typo(w, rw) {
					fixed = rw
					break runs
				}
			}
		}
	}
	got := []string{w}
	c.correct(got)
	if got[0] != fixed {
		t.Fatalf("%q: corrected to %q, a scan of the terms to %q", w, got[0], fixed)
	}
}

// TestConceptIndex checks the index of the built-in concepts' words
// against a scan of them, for every word of the evaluation tasks (each
// once: what the index finds for a word does not depend on the words
// around it).
func TestConceptIndex(t *testing.T) {
	t.Parallel()
	c := readBuiltinConcepts(t)
	seen := map[string]bool{}
	for _, f := range rankSets(t) {
		for _, tc := range readCases(t, f.path()) {
			for _, w := range embed.Words(tc.Task) {
				if !seen[w] {
					seen[w] = true
					checkIndex(t, c, w)
				}
			}
		}
	}
}

// checkRuns checks that the terms of several words found through their
// index are those a scan of every term finds in words.
func checkRuns(t *testing.T, c *Concepts, words []string) {
	t.Helper()
	var got, want []string
	c.matchRuns(words, func(i int, r *conceptRun) {
		got = append(got, fmt.Sprint(i, r.words, r.concept))
	})
	for _, r := range c.runs {
		for i := 0; i+len(r.words) <= len(words); i++ {
			if slices.Equal(words[i:i+len(r.words)], r.words) {
				want = append(want, fmt.Sprint(i, r.words, r.concept))
			}
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("%q: terms of several words %v through the index, %v by a scan", words, got, want)
	}
}

// TestConceptRuns checks the index of terms of several words against a
// scan of them, for every evaluation task.
func TestConceptRuns(t *testing.T) {
	t.Parallel()
	c := readBuiltinConcepts(t)
	n := 0
	for _, f := range rankSets(t) {
		for _, tc := range readCases(t, f.path()) {
			checkRuns(t, c, embed.Words(tc.Task))
			n++
		}
	}
	if n == 0 {
		t.Fatal("no tasks")
	}
}

// FuzzConceptIndex checks the index against a scan for any word: in
// the built-in concepts, and in those of a catalog found by its keywords
// (eval/heldout59), whose glossary words make thousands of terms more.
func FuzzConceptIndex(f *testing.F) {
	for _, s := range []string{"comit", "chnaged", "readme", "corrigir", "тетсы", "reveiw", "evrything", "compilar", "reads", "Drukcer", "impresroa", "прниетр"} {
		f.Add(s)
	}
	cs := []*Concepts{readBuiltinConcepts(f), catalogSetup(f, filepath.Join("testdata", "eval", "heldout59", "catalog.yaml")).Concepts}
	f.Fuzz(func(t *testing.T, text string) {
		words := embed.Words(text)
		for _, c := range cs {
			for _, w := range words {
				checkIndex(t, c, w)
			}
			checkRuns(t, c, words)
		}
	})
}

// TestConceptsExtended checks that the built-in concepts extended with a
// setup's are laid out as reading the built-in file with them is.
func TestConceptsExtended(t *testing.T) {
	extra := map[string][]string{
		"refund":        {"refund", "reembolso", "money back", "退款", "=remb"},
		"#issue_refund": {"erstattung", "remboursement", "返金"},
		"test":          {"prueba unitaria", "spec file"},
	}
	want, err := parseConcepts(builtinConceptsData(), extra)
	if err != nil {
		t.Fatal(err)
	}
	got := readBuiltinConcepts(t).extended(extra, nil)
	if !reflect.DeepEqual(got, want) {
		t.Fatal("the built-in concepts extended differ from the built-in file read with the same concepts")
	}
	if base := readBuiltinConcepts(t); slices.Contains(base.names, "refund") {
		t.Fatal("extended changed the built-in concepts it copied")
	}
}

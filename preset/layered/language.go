package layered

import (
	"strings"
	"unicode"
)

// A langSet is a set of the languages selection reads, one bit each: a
// glossary word's languages (the files of defaults/glossary that list
// it), or the language a task is written in. The empty set is "any" for
// a word and "unknown" for a task.
type langSet uint8

// The languages, in the order of langNames.
const (
	langEN langSet = 1 << iota
	langPT
	langES
	langFR
	langDE
	langZH
	langJA
	langRU
)

// langNames are the languages' codes, as the glossary's files are named
// (de.tsv) and as evaluation sets write them.
var langNames = [...]string{"en", "pt", "es", "fr", "de", "zh", "ja", "ru"}

// langOf is the language of code ("de"), or the empty set for a code
// that names none of them.
func langOf(code string) langSet {
	for i, n := range langNames {
		if n == code {
			return 1 << i
		}
	}
	return 0
}

// excludes reports whether a word of languages l is out of place in a
// task written in t: both are known, and t is not among l.
func (l langSet) excludes(t langSet) bool {
	return l != 0 && t != 0 && l&t == 0
}

// functionWords are, by language among those written in Latin letters,
// short words nearly every sentence of it holds and few of the others
// do: articles, prepositions, pronouns, auxiliaries, "please". They are
// written as embed.Words gives them (lower case, accents folded: "não"
// is "nao"). A word two languages share ("que", "la", "en") is listed
// for each and counts for both.
var functionWords = map[langSet][]string{
	langEN: strings.Fields("the and is are to of for in on with can you we it this that please what why how from my our not be have has was were will should would could there"),
	langPT: strings.Fields("nao que um uma para com os as do da dos das no na pra voce vc esta isso esse essa mas por eu ele ela tem foi ao pelo pela tambem ja ainda"),
	langES: strings.Fields("el la los las que un una para con por no es del al se lo le esto este esta pero como ya hay tambien"),
	langFR: strings.Fields("le la les des du un une et est pour avec dans sur pas que qui ce cette il elle on nous vous je tu mais en au aux ne plus ca"),
	langDE: strings.Fields("der die das und nicht ist ich wir bitte mit auf fur den dem ein eine einen einem noch schon auch mal wie warum wer kannst sind wird werden hat haben vom zum zur bei aus nach uber oder aber sich ob dass seit sollte muss mir uns kein keine nur jetzt wieder immer alle alles"),
}

// functionLangs are the languages each function word is one of.
var functionLangs = func() map[string]langSet {
	m := map[string]langSet{}
	for l, ws := range functionWords {
		for _, w := range ws {
			m[w] |= l
		}
	}
	return m
}()

// taskLanguage is the language a task is written in, from its text and
// its words (as embed.Words gives them): Japanese when it holds kana,
// Chinese when it holds ideographs and no kana, Russian when it holds
// Cyrillic letters; else the language whose function words it says
// most often, when one leads. It is the empty set (unknown) when none
// does: a task of a few words, or one that mixes languages evenly.
//
// Selection reads a glossary word only in a task of one of the word's
// languages (or one whose language is unknown): the French "poste" (a
// shift) starts the German "Posten" (an item on a bill), and the
// Spanish "servicio" is no English "service".
func taskLanguage(text string, words []string) langSet {
	var kana, han, cyrillic bool
	for _, r := range text {
		switch {
		case r < 0x0400:
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			kana = true
		case unicode.Is(unicode.Han, r):
			han = true
		case unicode.Is(unicode.Cyrillic, r):
			cyrillic = true
		}
	}
	switch {
	case kana:
		return langJA
	case han:
		return langZH
	case cyrillic:
		return langRU
	}
	var counts [len(langNames)]int
	for _, w := range words {
		l := functionLangs[w]
		for i := range counts {
			if l&(1<<i) != 0 {
				counts[i]++
			}
		}
	}
	best, first, second := 0, 0, 0
	for i, n := range counts {
		switch {
		case n > first:
			best, first, second = i, n, first
		case n > second:
			second = n
		}
	}
	if first == 0 || first == second {
		return 0
	}
	return 1 << best
}

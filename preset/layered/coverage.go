package layered

import "slices"

// Concepts returns the concepts selection reads in c: own, those its
// name or keywords name, and description, those only its description
// names, which weigh less. Among them is a keyword concept, "#" and a
// tool's name, when most of that tool's keywords no other concept names
// (see keywordTerms). Both are empty until the capability is part of a
// setup ParseSetup read, and for a nil one.
//
// A catalog outside a software agent's work (customer support, finance,
// a hotel's front office) has tools whose words the built-in concepts do
// not know: a task in another language, or in other words, then finds
// them only through their keywords as written and by similarity. The
// concepts a team adds under concepts: in layered.yaml, in its users'
// languages, are what carries selection there; Setup.Concepts.Of tells
// which of a tool's words no concept names ("tessera layered concepts"
// lists them).
func (c *Capability) Concepts() (own, description []string) {
	if c == nil {
		return nil, nil
	}
	own = slices.Clone(c.major)
	for _, x := range c.concepts {
		if !slices.Contains(c.major, x) {
			description = append(description, x)
		}
	}
	return own, description
}

// Glossary returns the words the built-in glossary gives c's keyword
// concept in the other languages selection reads: for a keyword of an
// English catalog ("invoice", "printer"), the words a task written in
// Portuguese, German or Japanese says for it ("fatura", "Drucker",
// "請求書"), matched as the keywords are. It is empty for a capability
// without a keyword concept, one whose keywords the glossary does not
// hold, and a nil one.
func (c *Capability) Glossary() []string {
	if c == nil {
		return nil
	}
	return glossWords(c.glossed)
}

// FoundByKeywords reports whether s's catalog is one selection finds
// mostly by its tools' own keywords: at least a quarter of its tools
// name no concept in their name or keywords but their keyword concept
// (no built-in concept, none of the setup's concepts:), as the tools of
// a catalog for work other than software (HR, a hotel, a legal team)
// do. Without a ranker.json of its own, such a setup ranks with the
// built-in ranker trained on catalogs of that kind
// (defaults/ranker-keywords.json), the others with the one trained on
// software work (defaults/ranker.json). It is false for a nil setup.
func (s *Setup) FoundByKeywords() bool {
	return s != nil && s.byKeywords
}

// foundByKeywords is FoundByKeywords for tools, their concepts read
// with concepts.
func foundByKeywords(tools []Capability, concepts *Concepts) bool {
	bare := 0
	for i := range tools {
		if !slices.ContainsFunc(tools[i].major, func(x string) bool { return !concepts.IsKeywords(x) }) {
			bare++
		}
	}
	return len(tools) > 0 && 4*bare >= len(tools)
}

// builtinFor is the built-in ranker for a catalog found by its keywords,
// or not (see FoundByKeywords).
func builtinFor(byKeywords bool) (*rankModel, error) {
	if byKeywords {
		return keywordRanker()
	}
	return defaultRanker()
}

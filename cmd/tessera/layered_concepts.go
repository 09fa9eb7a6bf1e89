package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/tessera-dev/tessera/preset/layered"
)

// layeredConceptsCmd is "tessera layered concepts": what selection reads
// of each tool and skill of the setup through its concepts, and the
// words no concept names.
func (a *app) layeredConceptsCmd() *cobra.Command {
	var (
		dir    string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "concepts [--dir DIR] [--json]",
		Short: "Show the concepts each tool and skill names, and the words of its name and keywords no concept names",
		Long: `Show, for each tool and skill of the setup, the concepts selection reads
in it (those its name and keywords name, then those only its
description names) and the words of its name and keywords that no
concept names.

Selection finds a tool for a task through the concepts the two share,
in any of the eight languages the built-in concepts hold, and through
the words they share as written. The built-in concepts are those of a
software agent's work. A tool most of whose keywords no concept names
(a refund, a shift, a ledger entry) has those keywords as a concept of
its own, "#" and its name: it is found by them, in the languages they
are written in and, for the everyday words of work the built-in
glossary holds, in the other seven (the glossary's words are listed).
Add your domain's words under concepts: in
layered.yaml, in your users' languages; this command then shows them
covered.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			setup, _, _, err := a.layeredSetup(cmd.Context(), dir)
			if err != nil {
				return err
			}
			cov := conceptCoverage(setup)
			if asJSON {
				return a.printJSON(cov)
			}
			tools, bare := 0, 0
			for _, c := range cov {
				line := c.Kind + " " + c.Name + ": "
				switch {
				case len(c.Concepts) > 0:
					line += strings.Join(c.Concepts, ", ")
				case len(c.DescriptionOnly) > 0:
					line += "none of its own"
				default:
					line += "no concept"
				}
				if len(c.DescriptionOnly) > 0 {
					line += " (description: " + strings.Join(c.DescriptionOnly, ", ") + ")"
				}
				if len(c.Uncovered) > 0 {
					other := ""
					if slices.ContainsFunc(c.Concepts, setup.Concepts.IsKeywords) {
						other = " other"
					}
					line += "; no" + other + " concept names " + strings.Join(c.Uncovered, ", ")
				}
				if n := len(c.Glossary); n > 0 {
					line += fmt.Sprintf("; the glossary adds %d words in other languages (%s)", n, glossSample(c.Glossary))
				}
				fmt.Fprintln(a.stdout, line)
				if c.Kind == "tool" {
					tools++
					if !slices.ContainsFunc(c.Concepts, notKeywords(setup)) {
						bare++
					}
				}
			}
			if bare > 0 {
				fmt.Fprintf(a.stdout, "%d of %d tools name no built-in concept, nor one of yours, in their name or keywords: selection finds them by their keywords alone (a tool's keywords no concept names are a concept of its own, #name) and by similarity. Add your domain's words under concepts: in layered.yaml, in your users' languages.\n", bare, tools)
			}
			if setup.FoundByKeywords() {
				fmt.Fprintln(a.stdout, "A catalog found by its keywords (a quarter of its tools or more name no other concept): without a ranker.json of its own, selection ranks with the built-in ranker trained on such catalogs too. Fit it to a few dozen of your tasks with tessera layered fit.")
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&dir, "dir", "", "the setup directory (default: tessera.yaml's layered)")
	f.BoolVar(&asJSON, "json", false, "print each tool's and skill's coverage as JSON")
	return cmd
}

// notKeywords returns whether a concept of setup is not a tool's
// keywords read as a concept of their own (Concepts.IsKeywords).
// glossSample is the first words of a capability's glossary words, for
// a line of tessera layered concepts; --json lists them all.
func glossSample(words []string) string {
	const show = 6
	if len(words) <= show {
		return strings.Join(words, ", ")
	}
	return strings.Join(words[:show], ", ") + ", ..."
}

func notKeywords(setup *layered.Setup) func(string) bool {
	return func(x string) bool { return !setup.Concepts.IsKeywords(x) }
}

// coverage is what "tessera layered concepts" reports of one tool or
// skill: the concepts its name and keywords name, those only its
// description names, and the words of its name and keywords no concept
// but its own keywords' names, in the order written.
type coverage struct {
	Kind            string   `json:"kind"`
	Name            string   `json:"name"`
	Concepts        []string `json:"concepts"`
	DescriptionOnly []string `json:"description_only"`
	Uncovered       []string `json:"uncovered"`
	Glossary        []string `json:"glossary"`
}

// conceptCoverage returns the coverage of every tool, then every skill,
// of setup, in the order of its manifests.
func conceptCoverage(setup *layered.Setup) []coverage {
	var out []coverage
	for _, kind := range []struct {
		name string
		caps []layered.Capability
	}{{"tool", setup.Tools}, {"skill", setup.Skills}} {
		for i := range kind.caps {
			c := &kind.caps[i]
			own, description := c.Concepts()
			cov := coverage{Kind: kind.name, Name: c.Name, Concepts: append([]string{}, own...), DescriptionOnly: append([]string{}, description...), Uncovered: []string{}, Glossary: append([]string{}, c.Glossary()...)}
			words := strings.FieldsFunc(c.Name, func(r rune) bool { return r == '_' || r == '-' || r == '.' })
			for _, w := range append(words, c.Keywords...) {
				if w = strings.TrimSpace(w); w != "" && !slices.ContainsFunc(setup.Concepts.Of(w), notKeywords(setup)) && !slices.Contains(cov.Uncovered, w) {
					cov.Uncovered = append(cov.Uncovered, w)
				}
			}
			out = append(out, cov)
		}
	}
	return out
}

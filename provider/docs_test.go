package provider

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tessera-dev/tessera/internal/golden"
)

// TestProvidersDoc keeps the capability table of docs/PROVIDERS.md (the
// part between its "capabilities" markers) generated from models.json,
// so that the page and the data cannot drift. Run go test ./provider -run
// TestProvidersDoc -update after changing models.json, and review the
// diff.
func TestProvidersDoc(t *testing.T) {
	golden.CompareSection(t, filepath.Join("..", "docs", "PROVIDERS.md"), "capabilities", []byte(capabilityDoc(BuiltinModels())), *update)
}

// capabilityDoc writes the table as Markdown: a table per provider, the
// keyword sets its rows refer to, and each row's notes and sources.
func capabilityDoc(t *ModelTable) string {
	var b strings.Builder
	for _, p := range Providers {
		var rows []Model
		for _, m := range t.Rows() {
			if m.Provider == p {
				rows = append(rows, m)
			}
		}
		fmt.Fprintf(&b, "\n#### %s\n\n", providerTitle(p))
		b.WriteString("| models | tools | JSON output | strict tools | tools + JSON output | refused keywords | min. cached prefix | context window | max. output | checked |\n")
		b.WriteString("| --- | --- | --- | --- | --- | --- | ---: | ---: | ---: | --- |\n")
		var sets []string // distinct keyword lists, in order of first use
		for _, m := range rows {
			kw := "—"
			if len(m.UnsupportedKeywords) > 0 {
				list := strings.Join(m.UnsupportedKeywords, ", ")
				i := slices.Index(sets, list)
				if i < 0 {
					sets = append(sets, list)
					i = len(sets) - 1
				}
				kw = setName(p, i)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
				patterns(m.Match), yesNo(m.Tools), yesNo(m.StructuredOutput), strictCell(p, m.StrictTools), yesNo(m.ToolsWithJSONOutput),
				kw, tokens(m.MinCacheTokens), tokens(m.ContextWindow), tokens(m.MaxOutputTokens), m.Checked)
		}
		b.WriteString("\n")
		for i, list := range sets {
			fmt.Fprintf(&b, "%s: `%s`.\n\n", setName(p, i), strings.ReplaceAll(list, ", ", "`, `"))
		}
		for _, m := range rows {
			fmt.Fprintf(&b, "- %s:", patterns(m.Match))
			if m.Note != "" {
				b.WriteString(" " + m.Note)
			}
			b.WriteString(" Sources:")
			for i, d := range m.Docs {
				fmt.Fprintf(&b, " [%d](%s)", i+1, d)
			}
			b.WriteString(".\n")
		}
	}
	return b.String()
}

func providerTitle(p string) string {
	switch p {
	case "openai":
		return "OpenAI (`openai`, `openai-responses`)"
	case "anthropic":
		return "Anthropic (`anthropic`)"
	}
	return "Gemini (`gemini`)"
}

func setName(p string, i int) string {
	return fmt.Sprintf("%s keyword set %d", providerTitle(p)[:strings.IndexByte(providerTitle(p), ' ')], i+1)
}

func patterns(ps []string) string {
	return "`" + strings.Join(ps, "`, `") + "`"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// strictCell is "—" for Gemini, which has no strict flag.
func strictCell(p string, b bool) string {
	if p == "gemini" {
		return "—"
	}
	return yesNo(b)
}

// tokens writes n with thousands separators, or "—" for not recorded.
func tokens(n int) string {
	if n == 0 {
		return "—"
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

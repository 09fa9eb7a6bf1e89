package budget

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// barWidth is the width, in cells, of a bar that fills the whole limit.
const barWidth = 20

// WriteTable writes the report as a table a person can scan: one row per
// section with its priority, trim rule, tokens before and after, a bar of
// its share of the limit and what was cut; then, each on a line of its
// own, the native tools sent (when the request was counted as a
// provider receives it), the output schema and the message framing; then
// the total.
func (r *Report) WriteTable(w io.Writer) error {
	exact := "exact"
	if !r.Exact {
		exact = "estimate"
	}
	rows := [][]string{{"SECTION", "PRIO", "RULE", "BEFORE", "AFTER", "SHARE OF LIMIT", "CUT"}}
	for _, s := range r.Sections {
		rows = append(rows, []string{s.Key, strconv.Itoa(s.Priority), s.Rule, strconv.Itoa(s.Before), strconv.Itoa(s.After), share(s.After, r.Limit), cut(s)})
	}
	// What the request carries beside the text, each a line of its own
	// (the names have spaces, so no section key can look like them).
	if r.Provider != "" {
		// Before: each tool's price, and what frames the list as sent.
		before, offered, sent := r.Tools, 0, 0
		for _, s := range r.Sections {
			if s.Tools > 0 {
				offered++
				if s.Dropped {
					before += s.Tools
				} else {
					sent++
				}
			}
		}
		if offered > 0 {
			rows = append(rows, []string{"native tools", "", "", strconv.Itoa(before), strconv.Itoa(r.Tools), share(r.Tools, r.Limit), fmt.Sprintf("sent with %d of %d sections", sent, offered)})
		}
	}
	if r.Output > 0 {
		rows = append(rows, []string{"output schema", "", "", strconv.Itoa(r.Output), strconv.Itoa(r.Output), share(r.Output, r.Limit), ""})
	}
	if r.Overhead > 0 {
		rows = append(rows, []string{"message framing", "", "", strconv.Itoa(r.Overhead), strconv.Itoa(r.Overhead), share(r.Overhead, r.Limit), ""})
	}
	rows = append(rows, []string{"total", "", "", strconv.Itoa(r.Before), strconv.Itoa(r.Final), share(r.Final, r.Limit), ""})
	var b strings.Builder
	fmt.Fprintf(&b, "budget: %d context - %d reserve = %d tokens; counter %s (%s)", r.Context, r.Reserve, r.Limit, r.Counter, exact)
	if r.Provider != "" {
		fmt.Fprintf(&b, "; counted as the %s request for %s receives it", r.Provider, r.Model)
	}
	b.WriteByte('\n')
	right := []bool{false, true, false, true, true, false, false}
	widths := make([]int, len(right))
	for _, row := range rows {
		for i, cell := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(cell))
		}
	}
	for _, row := range rows {
		var line strings.Builder
		for i, cell := range row {
			if i > 0 {
				line.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(cell))
			if right[i] {
				line.WriteString(pad + cell)
			} else {
				line.WriteString(cell + pad)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " "))
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// share renders n's share of limit as a bar and a percentage.
func share(n, limit int) string {
	return fmt.Sprintf("%s %5.1f%%", bar(n, limit), 100*float64(n)/float64(limit))
}

// bar draws n/limit of barWidth cells with eighth blocks, padded with dots
// to the full width so the percentages line up.
func bar(n, limit int) string {
	eighths := min(n*barWidth*8/limit, barWidth*8)
	var b strings.Builder
	b.WriteString(strings.Repeat("█", eighths/8))
	cells := eighths / 8
	if rem := eighths % 8; rem > 0 {
		b.WriteRune([]rune("▏▎▍▌▋▊▉")[rem-1])
		cells++
	}
	b.WriteString(strings.Repeat("·", barWidth-cells))
	return b.String()
}

// cut says what the budget took from a section.
func cut(s SectionReport) string {
	var parts []string
	switch {
	case s.DroppedWith != "":
		parts = append(parts, "dropped with "+s.DroppedWith)
	case s.Dropped:
		parts = append(parts, "dropped")
	}
	if n := len(s.ItemsDropped); n > 0 {
		ids, more := s.ItemsDropped, ""
		if n > 6 {
			ids, more = ids[:6], fmt.Sprintf(" +%d more", n-6)
		}
		parts = append(parts, fmt.Sprintf("%d items dropped (%s%s)", n, strings.Join(ids, " "), more))
	}
	if s.TruncatedTokens > 0 {
		parts = append(parts, fmt.Sprintf("truncated by %d tokens (%d bytes)", s.TruncatedTokens, s.TruncatedBytes))
	}
	if s.Cap > 0 {
		parts = append(parts, fmt.Sprintf("cap %d", s.Cap))
	}
	return strings.Join(parts, "; ")
}

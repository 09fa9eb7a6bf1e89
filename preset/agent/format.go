package agent

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/tessera-dev/tessera/internal/wordlist"
	"github.com/tessera-dev/tessera/preset/agent/reply"
	"github.com/tessera-dev/tessera/prompt"
)

// normalize gives text "\n" line ends: "\r\n", and '\r', vertical tab,
// form feed and NEL (U+0085), which a fence reads as line ends too,
// become '\n'.
func normalize(s string) string {
	if !strings.ContainsAny(s, "\r\v\f\u0085") {
		return s
	}
	return lineEnds.Replace(s)
}

var lineEnds = strings.NewReplacer("\r\n", "\n", "\r", "\n", "\v", "\n", "\f", "\n", "\u0085", "\n")

// inlineText is a value written inside a line, as oneLine writes it: a
// value of several lines (a goal, a subtask's description or acceptance
// criteria) must not add lines of its own to the prompt.
func inlineText(s string) string { return oneLine(s) }

// blockText is a value written on lines of its own: no trailing line
// ends, no leading blank lines.
func blockText(s string) string {
	s = strings.TrimRight(normalize(s), " \t\n")
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 || strings.TrimSpace(s[:i]) != "" {
			return s
		}
		s = s[i+1:]
	}
}

// formatMemoryEntry writes one memory entry as the prompt shows it,
// concisely: "- [type] summary (tags: a, b)", with the detail indented
// on the lines below when detail is true. A nil entry is "".
func formatMemoryEntry(e *reply.MemoryEntry, detail bool) string {
	if e == nil {
		return ""
	}
	var b strings.Builder
	size := len(e.Type) + len(e.Summary) + 16
	for _, t := range e.Tags {
		size += len(t) + 2
	}
	if detail {
		size += len(e.Detail) + 8
	}
	b.Grow(size)
	b.WriteString("- ")
	if e.Type != "" {
		b.WriteByte('[')
		b.WriteString(e.Type)
		b.WriteString("] ")
	}
	b.WriteString(oneLine(e.Summary))
	if len(e.Tags) > 0 {
		b.WriteString(" (tags: ")
		for i, t := range e.Tags {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(oneLine(t))
		}
		b.WriteByte(')')
	}
	if d := blockText(e.Detail); detail && d != "" {
		for line := range strings.SplitSeq(d, "\n") {
			b.WriteString("\n  ")
			b.WriteString(line)
		}
	}
	return b.String()
}

// oneLine joins the lines of s with spaces: lines end at the line ends
// normalize knows and at U+2028 and U+2029, as a fence reads them.
func oneLine(s string) string {
	s = strings.TrimSpace(normalize(s))
	if !strings.ContainsAny(s, "\n\u2028\u2029") {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// escapeLineSeps writes the Unicode line and paragraph separators (U+2028,
// U+2029) of a JSON text as escapes, which JSON reads as the same
// characters: a fence reads them as line ends, so they must not stand in
// a line of the prompt.
func escapeLineSeps(p []byte) []byte {
	if !bytes.Contains(p, []byte("\u2028")) && !bytes.Contains(p, []byte("\u2029")) {
		return p
	}
	return bytes.ReplaceAll(bytes.ReplaceAll(p, []byte("\u2028"), []byte(`\u2028`)), []byte("\u2029"), []byte(`\u2029`))
}

// memoryItems lays out entries as items: id the entry's (else prefix-N),
// relevance its score, else 1 when it is relevant to subtask, 0.5 when it
// names no subtask, 0 when it names only others.
func memoryItems(entries []reply.MemoryEntry, prefix, subtask string, detail bool) []prompt.Item {
	if len(entries) == 0 {
		return nil
	}
	out := make([]prompt.Item, len(entries))
	ids := make(map[string]bool, len(entries))
	for i := range entries {
		e := &entries[i]
		id := e.ID
		if id == "" || ids[id] {
			id = prefix + "-" + strconv.Itoa(i+1)
		}
		ids[id] = true
		rel := 0.5
		switch {
		case e.Score != nil:
			rel = *e.Score
		case len(e.RelevanceTo) > 0 && subtask != "" && slices.Contains(e.RelevanceTo, subtask):
			rel = 1
		case len(e.RelevanceTo) > 0:
			rel = 0
		}
		out[i] = prompt.Item{ID: id, Text: formatMemoryEntry(e, detail), Relevance: rel, Seq: int64(i)}
	}
	return out
}

// toolSections lays out the tools as parts the budget may drop one by
// one, each carrying its tool: the ones sub names when it names any, else
// all; most relevant first (see byScore: tools with a score by score,
// highest first, then those without one, each group in the order given),
// so the budget, which drops later parts first, drops the least relevant
// first.
func toolSections(tools []Tool, sub *reply.Subtask) ([]prompt.Section, error) {
	if len(tools) == 0 {
		return nil, nil
	}
	chosen := make([]int, 0, len(tools))
	if len(sub.Tools) > 0 {
		var missing []string
		for _, name := range sub.Tools {
			i := slices.IndexFunc(tools, func(t Tool) bool { return t.Name == name })
			if i < 0 {
				missing = append(missing, strconv.Quote(name))
				continue
			}
			if !slices.Contains(chosen, i) {
				chosen = append(chosen, i)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("agent: subtask %q names the tool%s %s, which the tools given do not define: give their definitions, or remove them from the subtask's tools", sub.ID, plural(len(missing)), wordlist.And(missing))
		}
		slices.Sort(chosen)
	} else {
		for i := range tools {
			chosen = append(chosen, i)
		}
	}
	slices.SortStableFunc(chosen, func(a, b int) int { return byScore(tools[a].Score, tools[b].Score) })
	out := make([]prompt.Section, 0, len(chosen))
	keys := make(map[string]bool, len(chosen))
	for n, i := range chosen {
		t := &tools[i]
		if t.Name == "" {
			return nil, fmt.Errorf("agent: tool %d has no name", i+1)
		}
		if keys[t.Name] {
			return nil, fmt.Errorf("agent: two tools are named %q: tool names are unique", t.Name)
		}
		params, err := compactParams(t.Parameters)
		if err != nil {
			return nil, fmt.Errorf("agent: tool %q: parameters: %w", t.Name, err)
		}
		key := "tool." + t.Name
		if !validKeyTail(t.Name) || keys[key] {
			key = "tool-" + strconv.Itoa(n+1)
		}
		keys[key], keys[t.Name] = true, true
		out = append(out, prompt.Section{
			Key:  key,
			Body: formatTool(t.Name, t.Description, params),
			// Sent as a native tool, the definition is the body's: the
			// section only names the tool.
			NativeBody: "- " + t.Name,
			Trim:       prompt.TrimDrop,
			Tools:      []prompt.Tool{{Name: t.Name, Description: oneLine(t.Description), Parameters: params}},
		})
	}
	return out, nil
}

// byScore orders tools most relevant first: scored tools by score,
// highest first, then the unscored ones. Tools it finds equal (the same
// score, or both unscored) are left to a stable sort, which keeps them
// in the order given. NaN scores are taken as the lowest scores.
func byScore(a, b *float64) int {
	switch {
	case a == nil && b == nil:
		return 0
	case a == nil:
		return 1
	case b == nil:
		return -1
	}
	return -cmp.Compare(*a, *b)
}

// validKeyTail reports whether "tool."+name is a valid section key (see
// prompt.ValidKey), without a regular expression on the hot path.
func validKeyTail(name string) bool {
	if name == "" || len(name) > 59 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// compactParams returns a tool's parameters schema as compact JSON, its
// members in their written order.
func compactParams(p json.RawMessage) (json.RawMessage, error) {
	if len(bytes.TrimSpace(p)) == 0 {
		return nil, nil
	}
	if compact(p) {
		// Already compact (as ParseTools writes it): an object, with no
		// space outside strings. Its validity is checked where it is
		// sent: a provider request parses every tool schema.
		return p, nil
	}
	var b bytes.Buffer
	if err := json.Compact(&b, p); err != nil {
		return nil, err
	}
	if b.Len() == 0 || b.Bytes()[0] != '{' {
		return nil, errors.New("not a JSON Schema object")
	}
	return b.Bytes(), nil
}

// compact reports whether p is an object written with no whitespace
// outside its strings.
func compact(p []byte) bool {
	if len(p) < 2 || p[0] != '{' || p[len(p)-1] != '}' {
		return false
	}
	if !bytes.ContainsAny(p, " \n\t\r") {
		return true
	}
	in := false
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == ' ' || c == '\n' || c == '\t' || c == '\r'):
			return false
		}
	}
	return !in
}

// formatTool writes a tool as the prompt shows it: "- name: description",
// then its parameters' schema as compact JSON on the next line.
func formatTool(name, description string, params json.RawMessage) string {
	var b strings.Builder
	b.Grow(len(name) + len(description) + len(params) + 20)
	b.WriteString("- ")
	b.WriteString(name)
	if d := oneLine(description); d != "" {
		b.WriteString(": ")
		b.WriteString(d)
	}
	if len(params) > 0 {
		b.WriteString("\n  parameters: ")
		b.Write(escapeLineSeps(params))
	}
	return b.String()
}

// callItems lays out tool calls as items, oldest first.
func callItems(calls []ToolCall) []prompt.Item {
	if len(calls) == 0 {
		return nil
	}
	out := make([]prompt.Item, len(calls))
	for i := range calls {
		out[i] = prompt.Item{ID: "call-" + strconv.Itoa(i+1), Text: formatToolCall(i+1, &calls[i]), Seq: int64(i)}
	}
	return out
}

// formatToolCall writes tool call n as the prompt shows it: "n. name
// arguments", then "result:" or "error:" and the text on the lines
// below. A nil call is "".
func formatToolCall(n int, c *ToolCall) string {
	if c == nil {
		return ""
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(n))
	b.WriteString(". ")
	b.WriteString(oneLine(c.Name))
	if args, err := compactParamsAny(c.Arguments); err == nil && len(args) > 0 {
		b.WriteByte(' ')
		b.Write(args)
	}
	if r := blockText(c.Result); r != "" {
		b.WriteString("\nresult:\n")
		b.WriteString(r)
	}
	if e := blockText(c.Error); e != "" {
		b.WriteString("\nerror:\n")
		b.WriteString(e)
	}
	if blockText(c.Result) == "" && blockText(c.Error) == "" {
		b.WriteString("\nresult: (empty)")
	}
	return b.String()
}

func compactParamsAny(p json.RawMessage) ([]byte, error) {
	if len(bytes.TrimSpace(p)) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	err := json.Compact(&b, p)
	return b.Bytes(), err
}

// formatPlan writes a plan as the replanner is shown it: JSON in the
// format the planner answers in, with each subtask's status, one subtask
// per line.
func formatPlan(p *reply.Plan) string {
	if p == nil {
		return ""
	}
	if len(p.Subtasks) == 0 {
		return `{"subtasks": []}`
	}
	var b strings.Builder
	b.WriteString("{\"subtasks\": [")
	for i := range p.Subtasks {
		s := p.Subtasks[i]
		if s.DependsOn == nil {
			s.DependsOn = []string{}
		}
		var data bytes.Buffer
		enc := json.NewEncoder(&data)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(&s); err != nil {
			continue // a Subtask always marshals
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("\n  ")
		b.Write(bytes.TrimSuffix(data.Bytes(), []byte("\n")))
	}
	b.WriteString("\n]}")
	return b.String()
}

package reply

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/tessera-dev/tessera/internal/wordlist"
)

// ParseExtraction reads an extractor's reply: the JSON array in it (see
// ExtractJSON) as memory entries. Each entry is an object with a type
// (one of MemoryTypes, any case), a summary of at most MaxSummary
// characters, and optionally detail, tags and relevance_to (each a list
// or one comma-separated string, split and trimmed). "[]" is a valid
// reply with no entries. Keys match in any case. It returns the entries
// read and every problem, as a diag.List naming the entry ("entry 2:
// ...") at its line and column in the reply.
func ParseExtraction(name string, text []byte) ([]MemoryEntry, error) {
	r := &reply{name: name, text: text}
	n := r.extract('[', `the extractor answers with a JSON array of entries, [] when nothing is worth keeping`)
	if n == nil {
		return nil, r.errs
	}
	out := make([]MemoryEntry, 0, len(n.elems))
	for i, e := range n.elems {
		label := fmt.Sprintf("entry %d", i+1)
		if e.kind != jsonObject {
			r.errorAt(e.off, "%s is %s: write an object with type and summary", label, e.kind)
			continue
		}
		r.repeated(e, label)
		var m MemoryEntry
		ok := true
		text := func(field string, required bool) string {
			f := e.field(field)
			switch {
			case f == nil && required:
				r.errorAt(e.off, "%s has no %s: add it", label, field)
				ok = false
			case f == nil:
			case f.kind != jsonString:
				r.errorAt(f.off, "%s: %s is %s: write a string", label, field, f.kind)
				ok = false
			default:
				return f.text
			}
			return ""
		}
		list := func(field string) []string {
			f := e.field(field)
			switch {
			case f == nil:
				return nil
			case f.kind == jsonString:
				return SplitList(f.text)
			case f.kind == jsonArray:
				var out []string
				for _, x := range f.elems {
					if x.kind != jsonString {
						r.errorAt(x.off, "%s: an item of %s is %s: write strings", label, field, x.kind)
						ok = false
						continue
					}
					if s := strings.TrimSpace(x.text); s != "" {
						out = append(out, s)
					}
				}
				return out
			}
			r.errorAt(f.off, "%s: %s is %s: write a comma-separated string or an array of strings", label, field, f.kind)
			ok = false
			return nil
		}
		m.Type = strings.ToLower(strings.TrimSpace(text("type", true)))
		m.Summary = strings.TrimSpace(text("summary", true))
		m.Detail = text("detail", false)
		m.Tags = list("tags")
		m.RelevanceTo = list("relevance_to")
		if f := e.field("type"); f != nil && f.kind == jsonString && !slices.Contains(MemoryTypes(), m.Type) {
			r.errorAt(f.off, "%s: type %q: use %s", label, f.text, wordlist.Or(MemoryTypes()))
			ok = false
		}
		if f := e.field("summary"); f != nil && f.kind == jsonString {
			switch c := utf8.RuneCountInString(m.Summary); {
			case c == 0:
				r.errorAt(f.off, "%s: the summary is empty: say in a sentence what was learned", label)
				ok = false
			case c > MaxSummary:
				r.errorAt(f.off, "%s: the summary is %d characters, over %d: shorten it, and put the rest in detail", label, c, MaxSummary)
				ok = false
			}
		}
		if ok {
			out = append(out, m)
		}
	}
	return out, r.result()
}

// ExecutorReply is what an executor's reply says: a summary of what was
// done, or that the subtask is blocked, and why.
type ExecutorReply struct {
	// Blocked is true when the reply is the executor's
	// {"status": "blocked", "reason": ...}.
	Blocked bool
	// Reason is why it is blocked.
	Reason string
	// Summary is the reply's text when it is not blocked.
	Summary string
}

// ParseExecutorReply reads an executor's final reply. A JSON object in it
// (see ExtractJSON) whose "status" is "blocked" (key and value in any
// case: {"Status": "BLOCKED"} too) makes it a blocked result, with the
// object's "reason" (a reason that is not a string is kept as compact
// JSON); any other reply is a summary of the work done, as is a reply
// with more commas and brackets than MaxReplyValues values need, which
// is not searched for JSON.
func ParseExecutorReply(text string) ExecutorReply {
	if _, over := replyMarks([]byte(text)); over {
		// Far more commas and brackets than a status object needs: the
		// text is the summary, unsearched.
		return ExecutorReply{Summary: strings.TrimSpace(text)}
	}
	if data, _, ok := ExtractJSON([]byte(text), '{'); ok {
		if n, err := parseJSON(data); err == nil {
			if st := n.field("status"); st != nil && st.kind == jsonString && strings.EqualFold(strings.TrimSpace(st.text), "blocked") {
				rep := ExecutorReply{Blocked: true}
				if rs := n.field("reason"); rs != nil {
					if rs.kind == jsonString {
						rep.Reason = strings.TrimSpace(rs.text)
					} else {
						rep.Reason = compactJSON(rs)
					}
				}
				return rep
			}
		}
	}
	return ExecutorReply{Summary: strings.TrimSpace(text)}
}

// Verdict is a verifier's judgement of a subtask.
type Verdict struct {
	// Passed is true when every acceptance criterion is met.
	Passed bool `json:"passed"`
	// Reason says why, citing the evidence.
	Reason string `json:"reason"`
	// Issues lists each criterion not met, or each problem found.
	Issues []string `json:"issues"`
}

// ParseVerdict reads a verifier's reply: the JSON object in it (see
// ExtractJSON) with "passed" (true or false), "reason" (a string that is
// not empty) and optionally "issues" (an array of strings, or one
// string). Keys match in any case. Every problem is returned, as a
// diag.List.
func ParseVerdict(name string, text []byte) (*Verdict, error) {
	r := &reply{name: name, text: text}
	n := r.extract('{', `the verifier answers with {"passed": true or false, "reason": "...", "issues": [...]}`)
	if n == nil {
		return nil, r.errs
	}
	r.repeated(n, "the verdict")
	v := &Verdict{Issues: []string{}}
	switch f := n.field("passed"); {
	case f == nil:
		r.errorAt(n.off, "the verdict has no \"passed\": add true or false")
	case f.kind != jsonBool:
		r.errorAt(f.off, "\"passed\" is %s: write true or false", f.kind)
	default:
		v.Passed = f.text == "true"
	}
	switch f := n.field("reason"); {
	case f == nil:
		r.errorAt(n.off, "the verdict has no \"reason\": add one")
	case f.kind != jsonString:
		r.errorAt(f.off, "\"reason\" is %s: write a string", f.kind)
	case strings.TrimSpace(f.text) == "":
		r.errorAt(f.off, "the verdict's \"reason\" is empty: say why it passed or failed, citing the evidence")
	default:
		v.Reason = strings.TrimSpace(f.text)
	}
	switch f := n.field("issues"); {
	case f == nil:
	case f.kind == jsonString:
		if s := strings.TrimSpace(f.text); s != "" {
			v.Issues = append(v.Issues, s)
		}
	case f.kind == jsonArray:
		for _, x := range f.elems {
			if x.kind != jsonString {
				r.errorAt(x.off, "an item of \"issues\" is %s: write strings", x.kind)
				continue
			}
			if s := strings.TrimSpace(x.text); s != "" {
				v.Issues = append(v.Issues, s)
			}
		}
	default:
		r.errorAt(f.off, "\"issues\" is %s: write an array of strings", f.kind)
	}
	return v, r.result()
}

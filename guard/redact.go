package guard

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Pattern is one kind of text to redact.
type Pattern struct {
	// Label names what the pattern finds; it appears in the placeholder
	// ("[REDACTED:label]") and in Counts. One to 32 lower-case letters,
	// digits, '.', '_' or '-'.
	Label string `json:"label" yaml:"label"`
	// Regexp is a Go regular expression (RE2 syntax). If it has a group
	// named "secret", only that group is replaced, as with the password of
	// "scheme://user:password@host"; otherwise the whole match is.
	Regexp string `json:"regexp" yaml:"regexp"`
	// Personal marks personal data (e-mail addresses, phone numbers)
	// rather than a credential. Redact replaces both kinds;
	// RedactSecrets only credentials, for text whose personal data is
	// wanted, such as the query a user is asking about.
	Personal bool `json:"personal,omitempty" yaml:"personal,omitempty"`
}

// Count is how many times one label was redacted.
type Count struct {
	// Label is the pattern's label.
	Label string `json:"label"`
	// N is the number of replacements.
	N int `json:"n"`
}

// Counts is a set of per-label counts, sorted by label and with no label
// twice, so that two equal sets print and compare the same. The zero value
// is an empty set.
type Counts []Count

// Add adds n to the count of label, keeping the set sorted.
func (c *Counts) Add(label string, n int) {
	if n == 0 {
		return
	}
	i, found := slices.BinarySearchFunc(*c, label, func(x Count, l string) int { return cmp.Compare(x.Label, l) })
	if found {
		(*c)[i].N += n
		return
	}
	*c = slices.Insert(*c, i, Count{Label: label, N: n})
}

// Merge adds every count of o.
func (c *Counts) Merge(o Counts) {
	for _, x := range o {
		c.Add(x.Label, x.N)
	}
}

// Get returns the count of label, 0 if it has none.
func (c Counts) Get(label string) int {
	i, found := slices.BinarySearchFunc(c, label, func(x Count, l string) int { return cmp.Compare(x.Label, l) })
	if found {
		return c[i].N
	}
	return 0
}

// Total returns the sum of all counts.
func (c Counts) Total() int {
	n := 0
	for _, x := range c {
		n += x.N
	}
	return n
}

// String returns the counts as "label=n" pairs separated by spaces, for
// logs.
func (c Counts) String() string {
	var b strings.Builder
	for i, x := range c {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s=%d", x.Label, x.N)
	}
	return b.String()
}

// Placeholder returns the text that replaces a redacted match of label.
func Placeholder(label string) string { return "[REDACTED:" + label + "]" }

// rule is a compiled pattern.
type rule struct {
	Pattern
	re          *regexp.Regexp
	secret      int    // index of the "secret" group, or -1
	placeholder string // Placeholder(Label)
	need        string // bytes every match holds
	mask        uint64 // need as bits of the Redactor's gate
	scope       scope  // nil: the whole text
	check       check  // nil: every match
}

// A window is a byte range of a text that may hold a match.
type window struct{ start, end int }

// scope returns the windows of text a pattern's matches must lie in,
// sorted and not overlapping, appended to dst. It lets a pattern skip
// text that cannot match without running the expression over it: Go's
// expressions are linear in time but slow on long text without a literal
// to look for first.
type scope func(text string, dst []window) []window

// check reports whether the match text[start:end] is a real one.
type check func(text string, start, end int) bool

// builtin is a built-in pattern with what keeps it fast and precise: the
// windows its matches lie in, and a check every match must pass.
type builtin struct {
	Pattern
	need  string // bytes every match holds: a text without one of them is skipped
	scope scope
	check check
}

// defaults are the built-in patterns, most specific first: when two
// matches start at the same place, the earlier pattern names the result.
var defaults = []builtin{
	{Pattern{Label: "private-key", Regexp: `-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)`},
		"-BEGIN", fromFirst("-----BEGIN"), nil},
	{Pattern{Label: "url-password", Regexp: `\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/?#@\[\]]+:(?P<secret>[^\s/?#@\[\]]+)@`},
		":/@", tokensWith("://"), nil},
	{Pattern{Label: "bearer-token", Regexp: `(?i)\bbearer\s+(?P<secret>[A-Za-z0-9._~+/=-]{20,})`},
		"", afterWord("bearer"), hasDigit},
	{Pattern{Label: "anthropic-key", Regexp: `\bsk-ant-[A-Za-z0-9_-]{20,}`},
		"sk-ant", tokensWith("sk-ant-"), hasDigit},
	{Pattern{Label: "openai-key", Regexp: `\bsk-[A-Za-z0-9_-]{20,}`},
		"sk-", tokensWith("sk-"), hasDigit},
	{Pattern{Label: "google-api-key", Regexp: `\bAIza[0-9A-Za-z_-]{35}\b`},
		"AIza", tokensWith("AIza"), nil},
	{Pattern{Label: "github-token", Regexp: `\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b`},
		"gh_", tokensWith("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), hasDigit},
	{Pattern{Label: "aws-access-key", Regexp: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`},
		"AI", tokensWith("AKIA", "ASIA"), nil},
	{Pattern{Label: "slack-token", Regexp: `\bxox[abposr]-[A-Za-z0-9-]{10,}`},
		"xo-", tokensWith("xox"), hasDigit},
	{Pattern{Label: "stripe-key", Regexp: `\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}`},
		"k_", tokensWith("_live_", "_test_"), hasDigit},
	{Pattern{Label: "jwt", Regexp: `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`},
		"eyJ.", tokensWith("eyJ"), nil},
	{Pattern{Label: "email", Regexp: `\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b`, Personal: true},
		"@.", tokensWith("@"), notURLUser},
	{Pattern{Label: "phone", Regexp: `(?:\+\d{1,3}[ .-]?)?(?:\(\d{3}\)[ .-]?|\b\d{3}[ .-])\d{3}[ .-]\d{4}\b|\+\d{1,3}(?:[ .-]?(?:\(\d{1,4}\)|\d{1,4})){2,6}\b`, Personal: true},
		"", digitRuns(8), phoneNumber},
}

// DefaultPatterns returns the built-in patterns, in the order they are
// tried: private keys (PEM blocks, "-----BEGIN … PRIVATE KEY-----"),
// passwords in URLs (scheme://user:password@host), bearer tokens, the API
// keys and tokens of Anthropic (sk-ant-), OpenAI (sk-, sk-proj-), Google
// (AIza…), GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), AWS access
// key ids (AKIA…, ASIA…), Slack (xox…) and Stripe (sk_live_, rk_live_,
// sk_test_), JSON Web Tokens, and, marked Personal, e-mail addresses and
// phone numbers.
//
// The built-in patterns carry two checks their expressions cannot say: a
// token must hold a digit (so "sk-learn-compatible-estimators" is prose,
// not a key), and a phone number must have 8 to 15 digits. A pattern
// passed to NewRedactor with the same label and expression as a built-in
// one keeps those checks.
func DefaultPatterns() []Pattern {
	ps := make([]Pattern, len(defaults))
	for i, d := range defaults {
		ps[i] = d.Pattern
	}
	return ps
}

// Redactor replaces matches of its patterns with labelled placeholders.
// It is immutable and safe for concurrent use.
type Redactor struct {
	rules []rule
	// gate maps each byte some rule needs to a bit; a text's bits, ORed
	// over its bytes in one pass, say which rules can match at all.
	gate [256]uint64
}

// newRedactor returns a Redactor of rules with its gate built.
func newRedactor(rules []rule) *Redactor {
	r := &Redactor{rules: rules}
	next := 0
	for i := range r.rules {
		ru := &r.rules[i]
		for j := 0; j < len(ru.need); j++ {
			c := ru.need[j]
			if r.gate[c] == 0 {
				if next == 64 {
					continue // out of bits: the gate is weaker, never wrong
				}
				r.gate[c] = 1 << next
				next++
			}
			ru.mask |= r.gate[c]
		}
	}
	return r
}

var labelPattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,31}$`)

// NewRedactor returns a Redactor for patterns, after the built-in ones if
// defaults is true. A pattern whose label is a built-in one replaces it, in
// its place; the others follow, in the order given. Every problem is
// reported, each naming the pattern by label (or by position when the
// label is the problem) and saying what to fix: a label that is empty,
// malformed or repeated, an expression that does not compile, or one that
// matches empty text.
//
// NewRedactor(nil, false) returns a Redactor that changes nothing.
func NewRedactor(patterns []Pattern, defaults bool) (*Redactor, error) {
	var errs []error
	seen := map[string]bool{}
	custom := make([]rule, 0, len(patterns))
	for i, p := range patterns {
		name := fmt.Sprintf("pattern %d (%q)", i+1, p.Label)
		if !labelPattern.MatchString(p.Label) {
			errs = append(errs, fmt.Errorf("guard: %s: the label must be 1 to 32 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit, such as \"api-key\"", name))
			continue
		}
		name = fmt.Sprintf("pattern %q", p.Label)
		if seen[p.Label] {
			errs = append(errs, fmt.Errorf("guard: %s: the label is used by an earlier pattern: give each pattern its own label", name))
			continue
		}
		seen[p.Label] = true
		r, err := compile(p, nil, nil)
		if err != nil {
			errs = append(errs, fmt.Errorf("guard: %s: %w", name, err))
			continue
		}
		if b, ok := builtinFor(p); ok {
			r.need, r.scope, r.check = b.need, b.scope, b.check
		}
		custom = append(custom, r)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if !defaults {
		return newRedactor(custom), nil
	}
	base := defaultRedactor()
	rules := make([]rule, 0, len(base.rules)+len(custom))
	for _, d := range base.rules {
		if i := slices.IndexFunc(custom, func(r rule) bool { return r.Label == d.Label }); i >= 0 {
			rules = append(rules, custom[i])
		} else {
			rules = append(rules, d)
		}
	}
	for _, r := range custom {
		if !slices.ContainsFunc(base.rules, func(d rule) bool { return d.Label == r.Label }) {
			rules = append(rules, r)
		}
	}
	return newRedactor(rules), nil
}

func builtinFor(p Pattern) (builtin, bool) {
	for _, b := range defaults {
		if b.Label == p.Label && b.Regexp == p.Regexp {
			return b, true
		}
	}
	return builtin{}, false
}

func compile(p Pattern, scope scope, check check) (rule, error) {
	if p.Regexp == "" {
		return rule{}, errors.New("the regexp is empty: write the expression to redact")
	}
	re, err := regexp.Compile(p.Regexp)
	if err != nil {
		return rule{}, fmt.Errorf("the regexp does not compile (%v): fix the expression, in Go (RE2) syntax", err)
	}
	if re.MatchString("") {
		return rule{}, errors.New("the regexp matches empty text: make it require at least one character")
	}
	r := rule{Pattern: p, re: re, secret: re.SubexpIndex("secret"), placeholder: Placeholder(p.Label), scope: scope, check: check}
	if scope == nil {
		// An expression that must start with a literal cannot match text
		// without it; checking for it first is much cheaper than running
		// the expression.
		if prefix, _ := re.LiteralPrefix(); prefix != "" {
			r.need, r.scope = prefix, fromFirst(prefix)
		}
	}
	return r, nil
}

// defaultRedactor is the Redactor of the built-in patterns, compiled once.
var defaultRedactor = sync.OnceValue(func() *Redactor {
	rules := make([]rule, len(defaults))
	for i, d := range defaults {
		r, err := compile(d.Pattern, d.scope, d.check)
		r.need = d.need
		if err != nil {
			panic("guard: built-in pattern " + d.Label + ": " + err.Error()) // a bug in this file, caught by every test
		}
		rules[i] = r
	}
	return newRedactor(rules)
})

// Default returns the Redactor of DefaultPatterns, shared and compiled
// once.
func Default() *Redactor { return defaultRedactor() }

// Patterns returns the redactor's patterns in the order they are tried.
func (r *Redactor) Patterns() []Pattern {
	ps := make([]Pattern, len(r.rules))
	for i, x := range r.rules {
		ps[i] = x.Pattern
	}
	return ps
}

// Redact returns text with every match of every pattern replaced by its
// placeholder, and how many of each label it replaced. Where matches
// overlap, they are replaced as one, under the label of the match that
// starts first (the earlier pattern when two start together), so no part
// of either survives. Text without a match is returned as it is, with nil
// Counts.
func (r *Redactor) Redact(text string) (string, Counts) { return r.redact(text, true) }

// RedactSecrets is Redact with only the patterns not marked Personal:
// credentials are replaced, e-mail addresses and phone numbers kept.
func (r *Redactor) RedactSecrets(text string) (string, Counts) { return r.redact(text, false) }

type span struct{ start, end, rule int }

func (r *Redactor) redact(text string, personal bool) (string, Counts) {
	if r == nil || text == "" {
		return text, nil
	}
	var spans []span
	var wins []window
	var present uint64
	for i := 0; i < len(text); i++ {
		present |= r.gate[text[i]]
	}
	for i := range r.rules {
		ru := &r.rules[i]
		if ru.Personal && !personal || present&ru.mask != ru.mask {
			continue
		}
		wins = wins[:0]
		if ru.scope == nil {
			wins = append(wins, window{0, len(text)})
		} else {
			wins = ru.scope(text, wins)
		}
		for _, w := range wins {
			for _, m := range ru.re.FindAllStringSubmatchIndex(text[w.start:w.end], -1) {
				for j := range m {
					if m[j] >= 0 {
						m[j] += w.start
					}
				}
				s, e := m[0], m[1]
				if ru.secret >= 0 {
					s, e = m[2*ru.secret], m[2*ru.secret+1]
				}
				if s < 0 || s == e || ru.check != nil && !ru.check(text, m[0], m[1]) {
					continue
				}
				spans = append(spans, span{s, e, i})
			}
		}
	}
	if len(spans) == 0 {
		return text, nil
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.rule, b.rule)) })
	// Merge overlapping spans into the first of them.
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	var b strings.Builder
	var counts Counts
	pos := 0
	for _, s := range merged {
		b.WriteString(text[pos:s.start])
		b.WriteString(r.rules[s.rule].placeholder)
		counts.Add(r.rules[s.rule].Label, 1)
		pos = s.end
	}
	b.WriteString(text[pos:])
	return b.String(), counts
}

func isTextSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// addWindow appends w to wins, merging it with the last window when they
// touch. Windows are added in order of their start.
func addWindow(wins []window, w window) []window {
	if n := len(wins); n > 0 && w.start <= wins[n-1].end {
		wins[n-1].end = max(wins[n-1].end, w.end)
		return wins
	}
	return append(wins, w)
}

// widen returns w one byte wider on each side, within text, so that an
// expression sees the byte before and after (for \b).
func widen(text string, start, end int) window {
	return window{max(start-1, 0), min(end+1, len(text))}
}

// tokensWith scopes a pattern whose matches hold no white space and
// contain one of subs: its windows are the runs of non-space bytes
// around each occurrence.
func tokensWith(subs ...string) scope {
	return func(text string, wins []window) []window {
		var found []window
		for _, sub := range subs {
			for off := 0; ; {
				i := strings.Index(text[off:], sub)
				if i < 0 {
					break
				}
				i += off
				start, end := i, i+len(sub)
				for start > 0 && !isTextSpace(text[start-1]) {
					start--
				}
				for end < len(text) && !isTextSpace(text[end]) {
					end++
				}
				found = append(found, widen(text, start, end))
				off = end
			}
		}
		if len(subs) > 1 {
			slices.SortFunc(found, func(a, b window) int { return cmp.Compare(a.start, b.start) })
		}
		for _, w := range found {
			wins = addWindow(wins, w)
		}
		return wins
	}
}

// fromFirst scopes a pattern whose matches start with sub: one window
// from its first occurrence to the end of the text.
func fromFirst(sub string) scope {
	return func(text string, wins []window) []window {
		if i := strings.Index(text, sub); i >= 0 {
			wins = append(wins, widen(text, i, len(text)))
		}
		return wins
	}
}

// afterWord scopes a pattern that is word (lower-case ASCII, matched in
// any case), white space, then a token: each window runs from the word to
// the end of the token after it.
func afterWord(word string) scope {
	// Looking for the word's tail in lower and in upper case with
	// strings.Index is much faster than comparing at every byte; the
	// candidates are then compared in full, in any case.
	tails := []string{word[1:], strings.ToUpper(word[1:])}
	return func(text string, wins []window) []window {
		var found []int
		for _, tail := range tails {
			for off := 1; off < len(text); {
				i := strings.Index(text[off:], tail)
				if i < 0 {
					break
				}
				i += off - 1
				if strings.EqualFold(text[i:i+len(word)], word) {
					found = append(found, i)
				}
				off = i + len(word)
			}
		}
		slices.Sort(found)
		for _, i := range found {
			end := i + len(word)
			for end < len(text) && isTextSpace(text[end]) {
				end++
			}
			for end < len(text) && !isTextSpace(text[end]) {
				end++
			}
			wins = addWindow(wins, widen(text, i, end))
		}
		return wins
	}
}

// phoneBytes are the bytes a phone number is written with.
var phoneBytes = func() (t [256]bool) {
	for _, c := range []byte("0123456789 .-()+") {
		t[c] = true
	}
	return t
}()

// digitRuns scopes a pattern over digits and separators (phone numbers):
// its windows are the runs of digits, spaces, '.', '-', '(', ')' and '+'
// that hold at least n digits.
func digitRuns(n int) scope {
	return func(text string, wins []window) []window {
		for i := 0; i < len(text); {
			if !isDigit(text[i]) {
				i++
				continue
			}
			start := i
			for start > 0 && phoneBytes[text[start-1]] {
				start--
			}
			digits, end := 0, start
			for end < len(text) && phoneBytes[text[end]] {
				if isDigit(text[end]) {
					digits++
				}
				end++
			}
			if digits >= n {
				wins = addWindow(wins, widen(text, start, end))
			}
			i = end
		}
		return wins
	}
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hasDigit requires a digit in the match: generated tokens have them,
// words do not.
func hasDigit(text string, start, end int) bool {
	return strings.ContainsAny(text[start:end], "0123456789")
}

// notURLUser rejects an e-mail-like match that is the user and host of a
// URL ("https://user:password@host"): that is the url-password pattern's.
func notURLUser(text string, start, _ int) bool {
	word := text[:start]
	if i := strings.LastIndexAny(word, " \t\n"); i >= 0 {
		word = word[i+1:]
	}
	return !strings.Contains(word, "://")
}

// phoneNumber requires 8 to 15 digits, the lengths of real numbers, and
// rejects a match that is part of a longer run of digit groups, as in a
// list of numbers ("100 200 300 4000").
func phoneNumber(text string, start, end int) bool {
	n := 0
	for i := start; i < end; i++ {
		if isDigit(text[i]) {
			n++
		}
	}
	if n < 8 || n > 15 {
		return false
	}
	sep := func(c byte) bool { return c == ' ' || c == '.' || c == '-' }
	before := start - 1
	if before >= 0 && sep(text[before]) {
		before--
	}
	after := end
	if after < len(text) && sep(text[after]) {
		after++
	}
	return (before < 0 || !isDigit(text[before])) && (after >= len(text) || !isDigit(text[after]))
}

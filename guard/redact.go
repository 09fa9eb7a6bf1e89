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
	secret      int      // index of the "secret" group, or -1
	placeholder string   // Placeholder(Label)
	find        finder   // a built-in pattern's scanner; nil: run re
	need        []string // sets of bytes every match holds one byte of
	mask        uint64   // need as bits of the Redactor's gate
	scope       scope    // nil: the whole text
}

// A window is a byte range of a text that may hold a match.
type window struct{ start, end int }

// scope returns the windows of text a pattern's matches must lie in,
// sorted and not overlapping, appended to dst. It lets a custom pattern
// skip text that cannot match without running the expression over it.
type scope func(text string, dst []window) []window

// Redactor replaces matches of its patterns with labelled placeholders.
// It is immutable and safe for concurrent use.
type Redactor struct {
	rules []rule
	// gated is set when some rule has a mask.
	gated bool
	// gate maps each byte to the bits of the sets of bytes (a rule's
	// need) it is in; a text's bits, ORed over its bytes in one pass, say
	// which rules can match at all. Most text lacks a byte every match
	// of most patterns holds (a digit, '@', '_', "://"), so most rules
	// are not run on it.
	gate [256]uint64
}

// newRedactor returns a Redactor of rules with its gate built: one bit
// per set of bytes the rules need, the first 64 sets (a rule whose set
// has no bit is run more often, never less).
func newRedactor(rules []rule) *Redactor {
	r := &Redactor{rules: rules}
	bits := map[string]uint64{}
	for i := range r.rules {
		ru := &r.rules[i]
		ru.mask = 0
		for _, set := range ru.need {
			bit, ok := bits[set]
			if !ok {
				if len(bits) == 64 {
					continue
				}
				bit = 1 << len(bits)
				bits[set] = bit
				for j := 0; j < len(set); j++ {
					r.gate[set[j]] |= bit
				}
			}
			ru.mask |= bit
		}
		r.gated = r.gated || ru.mask != 0
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
		r, err := compile(p, builtinFor(p))
		if err != nil {
			errs = append(errs, fmt.Errorf("guard: %s: %w", name, err))
			continue
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

// builtinFor returns the built-in pattern with p's label and expression,
// or nil.
func builtinFor(p Pattern) *builtin {
	for i := range defaults {
		if b := &defaults[i]; b.Label == p.Label && b.Regexp == p.Regexp {
			return b
		}
	}
	return nil
}

// compile checks and compiles p; b, when not nil, is the built-in
// pattern it is, whose scanner finds its matches.
func compile(p Pattern, b *builtin) (rule, error) {
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
	r := rule{Pattern: p, re: re, secret: re.SubexpIndex("secret"), placeholder: Placeholder(p.Label)}
	if b != nil {
		r.find, r.need = b.find, b.need
		return r, nil
	}
	// An expression that must start with a literal cannot match text
	// without it; checking for it first is much cheaper than running the
	// expression.
	if prefix, _ := re.LiteralPrefix(); prefix != "" {
		r.scope = fromFirst(prefix)
		for i := 0; i < len(prefix); i++ {
			r.need = append(r.need, prefix[i:i+1])
		}
	}
	return r, nil
}

// defaultRedactor is the Redactor of the built-in patterns, compiled once.
var defaultRedactor = sync.OnceValue(func() *Redactor {
	rules := make([]rule, len(defaults))
	for i := range defaults {
		d := &defaults[i]
		r, err := compile(d.Pattern, d)
		if err != nil {
			panic("guard: built-in pattern " + d.Label + ": " + err.Error()) // a bug in patterns.go, caught by every test
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
// Counts. The time it takes is linear in the length of the text.
func (r *Redactor) Redact(text string) (string, Counts) { return r.redact(text, true) }

// RedactSecrets is Redact with only the patterns not marked Personal:
// credentials are replaced; e-mail addresses, phone numbers, IBANs and
// social security numbers are kept.
func (r *Redactor) RedactSecrets(text string) (string, Counts) { return r.redact(text, false) }

// A span is a part of a text to replace, and the index of the rule whose
// placeholder replaces it.
type span struct{ start, end, rule int }

func (r *Redactor) redact(text string, personal bool) (string, Counts) {
	spans := r.spans(text, personal)
	if len(spans) == 0 {
		return text, nil
	}
	var b strings.Builder
	n := len(text)
	for _, s := range spans {
		n += len(r.rules[s.rule].placeholder) - (s.end - s.start)
	}
	b.Grow(n)
	var counts Counts
	pos := 0
	for _, s := range spans {
		b.WriteString(text[pos:s.start])
		b.WriteString(r.rules[s.rule].placeholder)
		counts.Add(r.rules[s.rule].Label, 1)
		pos = s.end
	}
	b.WriteString(text[pos:])
	return b.String(), counts
}

// spans returns the parts of text to replace, sorted and merged: where
// matches overlap, the one that starts first (the earlier rule when two
// start together) takes in the others.
func (r *Redactor) spans(text string, personal bool) []span {
	if r == nil || text == "" {
		return nil
	}
	var spans []span
	var present uint64
	if r.gated {
		for i := 0; i < len(text); i++ {
			present |= r.gate[text[i]]
		}
	}
	var hits []hit
	var wins []window
	for i := range r.rules {
		ru := &r.rules[i]
		if ru.Personal && !personal || present&ru.mask != ru.mask {
			continue
		}
		if ru.find != nil {
			hits = ru.find(text, hits[:0])
			for _, h := range hits {
				if h.start < h.end {
					spans = append(spans, span{h.start, h.end, i})
				}
			}
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
				s, e := m[0], m[1]
				if ru.secret >= 0 {
					s, e = m[2*ru.secret], m[2*ru.secret+1]
				}
				if s < 0 || s == e {
					continue
				}
				spans = append(spans, span{w.start + s, w.start + e, i})
			}
		}
	}
	if len(spans) == 0 {
		return nil
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.rule, b.rule)) })
	merged := spans[:1]
	for _, s := range spans[1:] {
		last := &merged[len(merged)-1]
		if s.start < last.end {
			last.end = max(last.end, s.end)
			continue
		}
		merged = append(merged, s)
	}
	return merged
}

// fromFirst scopes a pattern whose matches start with sub: one window
// from its first occurrence to the end of the text, a byte wider on the
// left so that the expression sees the byte before (for \b).
func fromFirst(sub string) scope {
	return func(text string, wins []window) []window {
		if i := strings.Index(text, sub); i >= 0 {
			wins = append(wins, window{max(i-1, 0), len(text)})
		}
		return wins
	}
}

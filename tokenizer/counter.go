package tokenizer

// Counter counts the tokens a model would see for a text. Implementations
// must be safe for concurrent use and deterministic: the same text always
// gives the same count.
type Counter interface {
	// Count returns the number of tokens in text.
	Count(text string) int
	// Name says which counter made a count, for metadata and reports:
	// an encoding such as "o200k_base", or an estimate such as
	// "estimate/claude".
	Name() string
	// Exact reports whether counts equal the model's own tokenizer; false
	// for calibrated estimates.
	Exact() bool
}

// Truncator is implemented by counters that can cut a text at one of
// their own token boundaries. The budget uses it to truncate a section;
// for a Counter without it, the cut is found by binary search with Count.
type Truncator interface {
	// Truncate returns the longest prefix of text that holds at most max
	// tokens and ends on a character boundary, with its token count.
	Truncate(text string, max int) (string, int)
}

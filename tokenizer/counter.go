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

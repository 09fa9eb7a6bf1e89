// Package tokenizer counts tokens the way models do: exact byte-pair
// encoders for OpenAI's o200k_base and cl100k_base encodings with their
// vocabularies embedded, calibrated estimates for models whose tokenizer
// is not public, a table from model names to counters, and the Counter
// interface that lets a caller plug in any other tokenizer.
package tokenizer

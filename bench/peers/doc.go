// Package peers benchmarks Tessera's token counter beside the Go
// tokenizer libraries in common use, on the same inputs in the same run.
// It is its own module so that the peers never enter Tessera's own
// dependency graph. Run it with ./run.sh, which also times OpenAI's
// reference tokenizer (the tiktoken npm package) and prints the ratios.
package peers

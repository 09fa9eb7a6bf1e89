// Package peers measures Tessera beside the libraries a team would
// otherwise use, on the same inputs in the same run:
//
//   - token counting (peers_test.go): Tessera's o200k_base counter against
//     github.com/tiktoken-go/tokenizer, github.com/pkoukk/tiktoken-go and
//     OpenAI's reference, the tiktoken npm package (WASM, under Node.js),
//     per kind of text;
//   - budgets (budget_test.go): the sections Tessera and Priompt keep when
//     fitting the same sections into the same o200k_base limits, and the
//     time of one fit by each;
//   - assembly (assembly_test.go): one prompt assembled by Tessera's
//     canonical spec and catalog, dotprompt's Go implementation and
//     text/template, checked to agree byte for byte, timed interleaved.
//
// It is its own module, so that the peers never enter Tessera's own
// dependency graph. ./run.sh runs all three and prints the ratios; the
// Node.js parts run when their node_modules are installed (see run.sh).
package peers

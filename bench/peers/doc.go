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
//     text/template, checked to agree byte for byte, timed interleaved;
//   - typed prompts (typed_test.go): one prompt with typed values, numbered
//     sections and a section enabled by a boolean, assembled by Tessera's
//     typed preset, dotprompt and text/template from one description,
//     checked to agree byte for byte, timed interleaved.
//
// It is its own module, so that the peers never enter Tessera's own
// dependency graph. ./run.sh runs all four and prints the ratios; the
// Node.js parts run when their node_modules are installed (see run.sh).
package peers

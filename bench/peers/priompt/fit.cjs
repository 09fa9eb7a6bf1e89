// Fits the budget comparison's inputs with Priompt, Anysphere's JSX
// prompt library, on the same o200k_base tokenizer and limits as
// bench/peers/budget_test.go, which writes the inputs:
//
//   go test -run TestWriteBudgetInputs -write-budget-inputs priompt/inputs.json .
//   cd priompt && npm ci && node fit.cjs inputs.json ../testdata/priompt.json
//
// Each section is a scope whose priority the Go side chose (higher is kept
// longer); a section that is never trimmed is text outside any scope.
// Priompt renders with its own binary search over priority levels and
// exact counts. The result for each input is the sections kept (every
// scope at or above Priompt's priority cutoff), the prompt's token count
// by Priompt's tokenizer and the SHA-256 of its text, which the Go test
// rebuilds and checks.
//
//   node fit.cjs --bench inputs.json
//
// times one render per input instead, printed in Go benchmark format.
//
// Priompt comes from the npm registry as @impowering/priompt 0.2.1, a
// fork of @anysphere/priompt 0.2.1 published with updated dependencies:
// the registry reachable here answers 404 for @anysphere/priompt. Its
// tokenizer is Anysphere's own @anysphere/tiktoken-node 0.2.1, which
// ships a Linux x64 build; its builds for other platforms are missing
// from the registry too, so package.json points them at an empty stand-in
// (unserved/) and npm ci installs from a complete lockfile. It runs on
// Linux x64.
"use strict";
const fs = require("fs");
const crypto = require("crypto");
const priompt = require("@impowering/priompt");
const { O200K } = require("@impowering/priompt/dist/tokenizer");
const { version } = require("@impowering/priompt/package.json");

const args = process.argv.slice(2);
const bench = args[0] === "--bench";
if (bench) args.shift();
if (args.length !== (bench ? 1 : 2)) {
  console.error("usage: node fit.cjs INPUTS.json OUT.json | node fit.cjs --bench INPUTS.json");
  process.exit(2);
}
const inputs = JSON.parse(fs.readFileSync(args[0], "utf8"));

// element builds the prompt tree for one input; Priompt marks the tree as
// it renders, so each render gets a fresh one.
const element = (input) =>
  priompt.createElement(
    "scope",
    {},
    ...input.sections.map((s) => (s.never ? s.text : priompt.createElement("scope", { p: s.rank }, s.text))),
  );

const fit = (input) => priompt.render(element(input), { tokenLimit: input.limit, tokenizer: O200K });

const main = async () => {
  if (bench) {
    for (const input of inputs) {
      for (let i = 0; i < 2; i++) await fit(input); // warm-up
      let n = 0;
      const start = process.hrtime.bigint();
      let ns = 0;
      do {
        await fit(input);
        n++;
        ns = Number(process.hrtime.bigint() - start);
      } while (ns < 1e9);
      console.log(`BenchmarkBudgetFit/${input.name}/priompt\t${n}\t${(ns / n).toFixed(0)} ns/op`);
    }
    return;
  }
  const results = [];
  for (const input of inputs) {
    const out = await fit(input);
    const text = out.prompt;
    if (typeof text !== "string") throw new Error(`${input.name}: Priompt returned a ${typeof text} prompt`);
    const kept = input.sections.filter((s) => s.never || s.rank >= out.priorityCutoff).map((s) => s.key);
    results.push({
      name: input.name,
      digest: input.digest,
      limit: input.limit,
      kept,
      tokens: out.tokenCount,
      sha256: crypto.createHash("sha256").update(text, "utf8").digest("hex"),
    });
  }
  const file = { library: "@impowering/priompt", version, results };
  fs.writeFileSync(args[1], JSON.stringify(file, null, 1) + "\n");
};

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);

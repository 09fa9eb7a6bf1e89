// Times OpenAI's reference tokenizer (the tiktoken npm package, a WASM
// build of the Rust code) on the same texts the Go benchmarks use,
// written by the Go test helper to texts.json: the 10 KB mixed texts and
// each kind's text. Prints lines in Go benchmark format so run.sh can
// compare them with the Go figures.
"use strict";
const fs = require("fs");
const path = require("path");
const { get_encoding } = require(path.join(__dirname, "..", "..", "tokenizer", "testdata", "reference", "node_modules", "tiktoken"));
const { mixed, kinds } = JSON.parse(fs.readFileSync(path.join(__dirname, "texts.json"), "utf8"));
const enc = get_encoding("o200k_base");
const lib = "tiktoken-wasm-reference";

// time counts texts in turn for at least minNs after a warm-up and
// returns the count, wall-clock nanoseconds per text and CPU nanoseconds
// per text (the process's, user and system).
const time = (texts, minNs) => {
  for (let i = 0; i < Math.min(50, texts.length * 3); i++) enc.encode_ordinary(texts[i % texts.length]);
  let n = 0;
  const start = process.hrtime.bigint();
  const cpu0 = process.cpuUsage();
  let ns = 0;
  do {
    enc.encode_ordinary(texts[n % texts.length]);
    n++;
    ns = Number(process.hrtime.bigint() - start);
  } while (ns < minNs);
  const cpu = process.cpuUsage(cpu0);
  return [n, ns / n, ((cpu.user + cpu.system) * 1e3) / n];
};
// line prints one result as Go's benchmarks do, with the MB/s of CPU time
// as cpu-MB/s.
const line = (name, bytes, [n, ns, cpuNs]) =>
  console.log(`${name}\t${n}\t${ns.toFixed(0)} ns/op\t${((bytes / ns) * 1e3).toFixed(2)} MB/s\t${((bytes / cpuNs) * 1e3).toFixed(2)} cpu-MB/s`);

line(`BenchmarkCount10KB/${lib}`, 10 * 1024, time(mixed, 1e9));
for (const k of kinds) {
  if (k.slow) continue; // quadratic in the run's length: minutes, not seconds
  line(`BenchmarkCountKind/${k.name}/${lib}`, Buffer.byteLength(k.text, "utf8"), time([k.text], 1e9));
}

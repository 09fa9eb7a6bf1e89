// Times OpenAI's reference tokenizer (the tiktoken npm package, a WASM
// build of the Rust code) on the same 10 KB texts the Go benchmarks use,
// written by the Go test helper to texts.json. Prints one line in Go
// benchmark format so run.sh can compare it with the Go figures.
"use strict";
const fs = require("fs");
const path = require("path");
const { get_encoding } = require(path.join(__dirname, "..", "..", "tokenizer", "testdata", "reference", "node_modules", "tiktoken"));
const texts = JSON.parse(fs.readFileSync(path.join(__dirname, "texts.json"), "utf8"));
const enc = get_encoding("o200k_base");
for (let i = 0; i < 50; i++) enc.encode_ordinary(texts[i % texts.length]); // warm up
const n = 2000;
const start = process.hrtime.bigint();
for (let i = 0; i < n; i++) enc.encode_ordinary(texts[i % texts.length]);
const ns = Number(process.hrtime.bigint() - start) / n;
const mbs = (10 * 1024) / ns * 1e3;
console.log(`BenchmarkCount10KB/tiktoken-wasm-reference\t${n}\t${ns.toFixed(0)} ns/op\t${mbs.toFixed(2)} MB/s`);

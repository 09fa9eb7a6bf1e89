// Regenerates ../reference.json and ../tricky.jsonl from OpenAI's own
// tokenizer (the npm package tiktoken, a WASM build of the Rust code).
//
//   cd tokenizer/testdata/reference && npm ci && npm run generate
//
// reference.json holds token counts for every file in ../corpus and
// ../kinds (the texts the benchmarks count, one per kind of text) and for
// long runs of one character; tricky.jsonl holds generated strings with
// their full token lists, compared token by token by the Go tests.
"use strict";
const fs = require("fs");
const path = require("path");
const { get_encoding } = require("tiktoken");

const names = ["o200k_base", "cl100k_base"];
const enc = Object.fromEntries(names.map((n) => [n, get_encoding(n)]));
const counts = (text) => Object.fromEntries(names.map((n) => [n, enc[n].encode_ordinary(text).length]));

const countDir = (dir) => fs.readdirSync(path.join(__dirname, "..", dir)).sort().map((name) => {
  const text = fs.readFileSync(path.join(__dirname, "..", dir, name), "utf8");
  return { file: name, ...counts(text) };
});
const files = countDir("corpus");
const kinds = countDir("kinds");

// Long runs: built by the tests with strings.Repeat(text, times).
const runs = [
  ["a", 100000], ["a", 50000], ["a", 20000], [" ", 100000], ["\n", 100000], ["7", 100000],
  ["ab", 50000], ["\t", 10000], ["é", 20000], ["中", 30000], ["😀", 10000],
  ["!", 100000], ["\r\n", 20000], [" \n", 20000], ["0", 12345], ["x ", 40000],
].map(([text, times]) => ({ repeat: text, times, ...counts(text.repeat(times)) }));

fs.writeFileSync(path.join(__dirname, "..", "reference.json"),
  JSON.stringify({ tiktoken: JSON.parse(fs.readFileSync(require.resolve("tiktoken").replace(/[^/]*$/, "package.json"), "utf8")).version, files, kinds, runs }, null, 1) + "\n");

// Tricky strings: a seeded generator over the characters where the
// pre-tokenizer's classes meet (contractions, marks, modifier letters,
// title case, Unicode digits and spaces, line ends, slashes, emoji).
let seed = 20261121;
const rand = (n) => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};
const atoms = [
  " ", "  ", "\n", "\r", "\r\n", "\t", "\u000b", "\u000c", "\u0085", "\u00a0", "\u2028", "\u2029", "\u3000", "\u2003", "\u200b", "\ufeff",
  "'", "'s", "'S", "'t", "'re", "'RE", "'ve", "'m", "'ll", "'LL", "'d", "'ſ", "’s",
  "a", "b", "z", "A", "Z", "hello", "World", "HELLO", "camelCase", "XMLHttp", "don", "ſ", "ǅ", "ʰ", "ˈ", "ー", "々",
  "\u0301", "\u0308", "e\u0301", "\u094d", "क", "ा", "ि", "ב", "\u05b8", "ع", "\u064e",
  "中", "文", "あ", "カ", "한", "ㄱ", "ก", "\u0e34",
  "0", "1", "9", "42", "12345", "٣", "²", "½", "Ⅷ", "①", "𝟘",
  "/", "//", "\\", ".", "...", ",", "!", "?", "-", "--", "_", "(", ")", "{", "}", "[", "]", "<", ">", "\"", "`", "~", "@", "#", "$", "%", "^", "&", "*", "+", "=", "|", ":", ";",
  "😀", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "1️⃣", "\u200d", "\ufe0f", "€", "£", "©", "™", "→", "∑",
];
const lines = [];
for (let i = 0; i < 4000; i++) {
  const n = 1 + rand(24);
  let s = "";
  for (let k = 0; k < n; k++) s += atoms[rand(atoms.length)];
  const rec = { text: s };
  for (const name of names) rec[name] = Array.from(enc[name].encode_ordinary(s));
  lines.push(JSON.stringify(rec));
}
fs.writeFileSync(path.join(__dirname, "..", "tricky.jsonl"), lines.join("\n") + "\n");
console.log(`reference.json: ${files.length} files, ${kinds.length} kinds, ${runs.length} runs; tricky.jsonl: ${lines.length} strings`);

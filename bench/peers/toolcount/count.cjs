// Counts each request of provider/testdata/toolcount/cases.json with
// openai-chat-tokens (whose counts its author checked against the
// prompt_tokens OpenAI's API reports, with cl100k_base), and writes
// {"name": tokens} to the file named by the second argument.
// Usage: node count.cjs CASES OUT
"use strict";
const fs = require("fs");
const { promptTokensEstimate } = require("openai-chat-tokens");

const [casesPath, outPath] = process.argv.slice(2);
const cases = JSON.parse(fs.readFileSync(casesPath, "utf8"));
const out = {};
for (const c of cases) {
  const messages = [];
  if (c.system) messages.push({ role: "system", content: c.system });
  messages.push({ role: "user", content: c.user });
  const functions = c.tools.length
    ? c.tools.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters || { type: "object", properties: {} } }))
    : undefined;
  out[c.name] = promptTokensEstimate({ messages, functions });
}
const tmp = outPath + ".tmp";
fs.writeFileSync(tmp, JSON.stringify(out, null, 2) + "\n");
fs.renameSync(tmp, outPath);

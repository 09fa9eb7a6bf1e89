// Runs the official Langfuse JavaScript client against a running
// tessera serve and prints what it saw as one JSON object, for
// compat/langfuse's Go test to check. Nothing here knows Tessera: it is
// what a Langfuse user's code does.
//
// Environment: LANGFUSE_BASE_URL, LANGFUSE_PUBLIC_KEY,
// LANGFUSE_SECRET_KEY, PROMPT (a prompt's name), CHAT (a chat prompt's
// name, or empty).
import { LangfuseClient } from "@langfuse/client";

const env = process.env;
const langfuse = new LangfuseClient({
  publicKey: env.LANGFUSE_PUBLIC_KEY,
  secretKey: env.LANGFUSE_SECRET_KEY,
  baseUrl: env.LANGFUSE_BASE_URL,
});
const name = env.PROMPT;
const auth = "Basic " + Buffer.from(`${env.LANGFUSE_PUBLIC_KEY}:${env.LANGFUSE_SECRET_KEY}`).toString("base64");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// patch moves labels as a Langfuse user would, with the API's PATCH.
async function patch(version, body) {
  const res = await fetch(`${env.LANGFUSE_BASE_URL}/api/public/v2/prompts/${encodeURIComponent(name)}/versions/${version}`, {
    method: "PATCH",
    headers: { Authorization: auth, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(`PATCH ${version}: ${res.status} ${await res.text()}`);
}

const out = {};
const brief = (p) => ({ name: p.name, version: p.version, type: p.type, labels: p.labels, isFallback: p.isFallback, length: typeof p.prompt === "string" ? p.prompt.length : p.prompt.length });

// get(name): no label, so Langfuse's "production".
const prod = await langfuse.prompt.get(name, { cacheTtlSeconds: 0 });
out.production = brief(prod);
// get(name, {label}) and get(name, {version}).
out.latest = brief(await langfuse.prompt.get(name, { label: "latest", cacheTtlSeconds: 0 }));
out.version1 = brief(await langfuse.prompt.get(name, { version: 1, cacheTtlSeconds: 0 }));
// compile(variables) fills {{customer}} in a text prompt.
const compiled = prod.compile({ customer: "ACME Corp" });
out.compiled = { hasValue: compiled.includes("ACME Corp"), hasPlaceholder: compiled.includes("{{customer}}") };

// The cache, as Langfuse documents it: within the TTL the cached copy;
// past it the stale copy at once while a refresh runs; then the new one.
const ttl = 1;
const first = await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: ttl });
await patch(2, { newLabels: ["staging"] });
const withinTTL = await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: ttl });
await sleep(ttl * 1000 + 300);
const stale = await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: ttl });
await sleep(500);
const fresh = await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: ttl });
out.cache = { first: first.version, withinTTL: withinTTL.version, staleAfterTTL: stale.version, afterRefresh: fresh.version };

// A label removed on the server: what the client serves past the TTL.
await patch(2, { removeLabels: ["staging"] });
await sleep(ttl * 1000 + 300);
const afterRemoval = await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: ttl });
await sleep(500);
const afterRemovalRefresh = await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: ttl });
out.removed = { served: afterRemoval.version, servedAfterRefresh: afterRemovalRefresh.version };
// Without a cached copy, a removed label is an error, or the fallback.
try {
  await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: 0, maxRetries: 0 });
  out.removedUncached = "served";
} catch (err) {
  out.removedUncached = "error";
}
const fb = await langfuse.prompt.get(name, { label: "staging", cacheTtlSeconds: 0, maxRetries: 0, fallback: "fallback {{customer}}" });
out.fallback = { isFallback: fb.isFallback, text: fb.compile({ customer: "x" }) };

if (env.CHAT) {
  const chat = await langfuse.prompt.get(env.CHAT, { label: "latest", type: "chat", cacheTtlSeconds: 0 });
  const messages = chat.compile({});
  out.chat = { type: chat.type, roles: messages.map((m) => m.role) };
}

process.stdout.write(JSON.stringify(out) + "\n");

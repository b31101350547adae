// Long-lived KaTeX worker for the site build (driven by hooks/katex.py).
//
// Protocol: newline-delimited JSON on stdin and stdout, one reply line per
// request line, in order.
//
//   first line   {"init": {"macros": {...}, "strict": "error"}}
//   reply        {"ready": true, "version": "<katex version>"}
//   then         {"tex": "...", "display": false}
//   reply        {"html": "..."}  or  {"error": "..."}
//
// Usage: node katex_worker.mjs [KATEX_DIR]
// KATEX_DIR defaults to ../node_modules/katex relative to this script.
// Bad TeX never crashes the worker: it is reported as {"error": ...}.
// The worker exits when stdin ends.

import { createRequire } from "node:module";
import path from "node:path";
import readline from "node:readline";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const katexDir = path.resolve(process.argv[2] ?? path.join(here, "..", "node_modules", "katex"));
const require = createRequire(import.meta.url);
const katex = require(katexDir);

// stdout carries the protocol only: anything KaTeX (or anything else) logs is
// collected and returned with the reply of the request that caused it.
let logged = [];
const collect = (...args) => {
  logged.push(args.map(String).join(" "));
};
console.log = collect;
console.info = collect;
console.warn = collect;
console.error = collect;
console.debug = collect;

let baseMacros = {};
let strict = "error";

function send(obj) {
  process.stdout.write(JSON.stringify(obj) + "\n");
}

function handle(req) {
  if (req.init !== undefined) {
    baseMacros = req.init.macros ?? {};
    strict = req.init.strict ?? "error";
    return { ready: true, version: katex.version };
  }
  if (typeof req.tex !== "string") {
    return { error: "request has no string field 'tex'" };
  }
  // With trust false KaTeX silently renders \href, \url, \includegraphics...
  // as red text instead of throwing; record them so the build fails instead.
  const untrusted = [];
  const options = {
    displayMode: req.display === true,
    output: "htmlAndMathml",
    throwOnError: true,
    strict,
    trust: (context) => {
      untrusted.push(context.command);
      return false;
    },
    // A fresh copy per formula: \gdef inside one formula must not leak into
    // the next one, or the output would depend on rendering order and cache.
    macros: { ...baseMacros },
  };
  const html = katex.renderToString(req.tex, options);
  if (untrusted.length > 0) {
    const commands = [...new Set(untrusted)].join(", ");
    return { error: `untrusted command(s) not allowed in the site's math: ${commands}` };
  }
  return { html };
}

// KaTeX's own message underlines the offending input with U+0332 combining
// characters, unreadable in a build log: report the raw message and position.
function describe(err) {
  if (err instanceof katex.ParseError) {
    const where = typeof err.position === "number" ? ` (at position ${err.position + 1})` : "";
    return `KaTeX parse error: ${err.rawMessage}${where}`;
  }
  return err instanceof Error ? err.message : String(err);
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });

rl.on("line", (line) => {
  if (line.trim() === "") {
    return;
  }
  logged = [];
  let reply;
  try {
    reply = handle(JSON.parse(line));
  } catch (err) {
    reply = { error: describe(err) };
  }
  if (logged.length > 0) {
    reply.warnings = logged;
  }
  send(reply);
});

rl.on("close", () => {
  process.exitCode = 0;
});

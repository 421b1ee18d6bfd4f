// Renders every formula of the built docs site with the site's own KaTeX, as the reader's
// browser will: a formula KaTeX cannot parse (a macro sympy's printer uses and KaTeX lacks, a
// typo in a page) fails here instead of showing as red source text on the site.
// Usage: node tools/check_math.js site
"use strict";
const fs = require("fs");
const path = require("path");
const katex = require(path.join(__dirname, "web", "node_modules", "katex"));

const ENTITIES = { "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&#39;": "'" };
const unescape = (s) => s.replace(/&(amp|lt|gt|quot|#39);/g, (m) => ENTITIES[m]);
// arithmatex (generic mode) writes \( ... \) inline and \[ ... \] in display blocks
const FORMULA = /<(span|div) class="arithmatex">([\s\S]*?)<\/\1>/g;

function* pages(dir) {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* pages(full);
    else if (entry.name.endsWith(".html")) yield full;
  }
}

const site = process.argv[2] || "site";
let count = 0;
const failures = [];
for (const page of pages(site)) {
  const html = fs.readFileSync(page, "utf8");
  for (const match of html.matchAll(FORMULA)) {
    const text = unescape(match[2]).trim();
    const display = text.startsWith("\\[");
    const tex = text.slice(2, -2);
    count += 1;
    try {
      katex.renderToString(tex, { displayMode: display, throwOnError: true });
    } catch (error) {
      failures.push(`${path.relative(site, page)}: ${error.message}\n    ${tex.slice(0, 200)}`);
    }
  }
}
console.log(`${count} formulas rendered by KaTeX ${katex.version}, ${failures.length} failed`);
for (const failure of failures) console.log(failure);
process.exit(failures.length ? 1 : 0);

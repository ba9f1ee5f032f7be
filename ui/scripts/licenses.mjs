// The licenses of the packages the window ships (production dependencies,
// from package-lock.json) against the allow list in ../deny.toml, the same
// list `cargo deny` holds the Rust tree to. Exits 1 naming each package
// whose license is not allowed. Run by `cargo xtask test`.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (p) => fileURLToPath(new URL(p, import.meta.url));
const deny = readFileSync(here("../../deny.toml"), "utf8");
const block = /\[licenses\][\s\S]*?allow\s*=\s*\[([\s\S]*?)\]/.exec(deny);
if (!block) {
  console.error("deny.toml: no [licenses] allow list");
  process.exit(2);
}
const allowed = new Set([...block[1].matchAll(/"([^"]+)"/g)].map((m) => m[1]));
const lock = JSON.parse(readFileSync(here("../package-lock.json"), "utf8"));

// "A OR B" is fine when one side is allowed; "A AND B" needs both.
const ok = (expr) => {
  const e = expr.replace(/^\((.*)\)$/, "$1").trim();
  if (e.includes(" OR ")) return e.split(" OR ").some(ok);
  if (e.includes(" AND ")) return e.split(" AND ").every(ok);
  return allowed.has(e);
};

let shipped = 0;
const bad = [];
for (const [path, pkg] of Object.entries(lock.packages ?? {})) {
  if (!path || pkg.dev || pkg.link) continue;
  shipped += 1;
  const license = typeof pkg.license === "string" ? pkg.license : "";
  if (!license || !ok(license)) bad.push(`${path.replace(/^.*node_modules\//, "")}@${pkg.version}: ${license || "no license stated"}`);
}
if (bad.length) {
  console.error(`licenses not allowed by deny.toml (${bad.length} of ${shipped} shipped packages):`);
  for (const b of bad) console.error(`  ${b}`);
  process.exit(1);
}
console.log(`licenses ok: ${shipped} shipped npm packages, all allowed by deny.toml`);

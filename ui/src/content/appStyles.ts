// The workbench's design tokens as the style variables the MCP Apps spec
// names (`--color-background-primary`, ...), each `light-dark(light, dark)`
// where the two themes differ, read from the token sheet itself so an App
// looks like part of the window in either theme.

/** Spec variable → our token. */
const MAP: [string, string][] = [
  ["--color-background-primary", "--surface"],
  ["--color-background-secondary", "--surface-2"],
  ["--color-background-tertiary", "--surface-3"],
  ["--color-background-inverse", "--text"],
  ["--color-background-info", "--info-soft"],
  ["--color-background-danger", "--danger-soft"],
  ["--color-background-success", "--ok-soft"],
  ["--color-background-warning", "--warn-soft"],
  ["--color-text-primary", "--text"],
  ["--color-text-secondary", "--text-2"],
  ["--color-text-tertiary", "--text-3"],
  ["--color-text-inverse", "--surface"],
  ["--color-text-info", "--info"],
  ["--color-text-danger", "--danger"],
  ["--color-text-success", "--ok"],
  ["--color-text-warning", "--warn"],
  ["--color-border-primary", "--border-strong"],
  ["--color-border-secondary", "--border"],
  ["--color-border-tertiary", "--border"],
  ["--color-ring-primary", "--focus"],
  ["--font-sans", "--font-sans"],
  ["--font-mono", "--font-mono"],
  ["--font-weight-medium", "--weight-medium"],
  ["--font-weight-semibold", "--weight-semibold"],
  ["--font-text-xs-size", "--text-xs"],
  ["--font-text-sm-size", "--text-sm"],
  ["--font-text-md-size", "--text-md"],
  ["--font-text-lg-size", "--text-lg"],
  ["--border-radius-xs", "--radius-sm"],
  ["--border-radius-sm", "--radius-sm"],
  ["--border-radius-md", "--radius-md"],
  ["--border-radius-lg", "--radius-lg"],
  ["--border-radius-full", "--radius-full"],
  ["--shadow-sm", "--shadow-sm"],
  ["--shadow-md", "--shadow-md"],
  ["--shadow-lg", "--shadow-lg"],
];

/** The tokens each theme's rule sets (`:root`, `:root[data-theme="dark"]`). */
function tokens(): { light: Map<string, string>; dark: Map<string, string> } {
  const light = new Map<string, string>();
  const dark = new Map<string, string>();
  for (const sheet of Array.from(document.styleSheets)) {
    let rules: CSSRuleList;
    try {
      rules = sheet.cssRules;
    } catch {
      continue;
    }
    for (const rule of Array.from(rules)) {
      if (!(rule instanceof CSSStyleRule)) continue;
      const into = rule.selectorText === ":root" ? light : rule.selectorText.replace(/\s/g, "") === ':root[data-theme="dark"]' ? dark : null;
      if (!into) continue;
      for (const name of Array.from(rule.style)) {
        if (name.startsWith("--")) into.set(name, rule.style.getPropertyValue(name).trim());
      }
    }
  }
  return { light, dark };
}

/** The spec's style variables for the host context: colours as
 * `light-dark()` (the App follows its color-scheme), the rest as `theme` has them. */
export function styleVariables(theme: "light" | "dark"): Record<string, string> {
  const { light, dark } = tokens();
  const out: Record<string, string> = {};
  for (const [name, token] of MAP) {
    const l = light.get(token);
    if (!l) continue;
    const d = dark.get(token) ?? l;
    if (l === d) out[name] = l;
    else out[name] = name.startsWith("--color-") ? `light-dark(${l}, ${d})` : theme === "dark" ? d : l;
  }
  return out;
}

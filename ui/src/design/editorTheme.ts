// CodeMirror themed from the design tokens (so the editor follows light
// and dark with the rest of the window), with an accessible name.
import { EditorView } from "@codemirror/view";
import { HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags as t } from "@lezer/highlight";

const theme = EditorView.theme({
  "&": { backgroundColor: "var(--surface)", color: "var(--text)" },
  ".cm-content": { caretColor: "var(--text)", fontFamily: "var(--font-mono)" },
  ".cm-gutters": { backgroundColor: "var(--surface-2)", color: "var(--text-3)", borderRight: "1px solid var(--border)" },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--accent) 6%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--surface-3)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground, ::selection": { backgroundColor: "var(--selection)" },
  ".cm-cursor": { borderLeftColor: "var(--text)" },
  ".cm-matchingBracket": { backgroundColor: "var(--accent-soft)", outline: "1px solid var(--accent)" },
});

const highlight = HighlightStyle.define([
  { tag: t.propertyName, color: "var(--accent-text)" },
  { tag: t.string, color: "var(--ok)" },
  { tag: [t.number, t.bool, t.null], color: "var(--warn)" },
  { tag: [t.comment, t.lineComment, t.blockComment], color: "var(--text-3)", fontStyle: "italic" },
  { tag: t.invalid, color: "var(--danger)" },
]);

/** The editor's look and its accessible name. */
export function editorTheme(label: string) {
  return [theme, syntaxHighlighting(highlight), EditorView.contentAttributes.of({ "aria-label": label, tabindex: "0" })];
}

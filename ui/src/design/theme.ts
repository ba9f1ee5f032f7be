// Light, dark, or the system's: the person's choice is remembered; the
// resolved theme is set on <html data-theme> (tokens.css reads it), and
// follows the system while the choice is "system".
import { useSyncExternalStore } from "react";

export type ThemeChoice = "system" | "light" | "dark";
const KEY = "mcpwb.theme";
const listeners = new Set<() => void>();

function systemDark(): boolean {
  return typeof window !== "undefined" && window.matchMedia?.("(prefers-color-scheme: dark)").matches === true;
}

export function themeChoice(): ThemeChoice {
  const saved = localStorage.getItem(KEY);
  return saved === "light" || saved === "dark" ? saved : "system";
}

export function resolvedTheme(choice: ThemeChoice = themeChoice()): "light" | "dark" {
  return choice === "system" ? (systemDark() ? "dark" : "light") : choice;
}

function apply() {
  document.documentElement.dataset.theme = resolvedTheme();
  listeners.forEach((l) => l());
}

export function setThemeChoice(choice: ThemeChoice) {
  if (choice === "system") localStorage.removeItem(KEY);
  else localStorage.setItem(KEY, choice);
  apply();
}

/** Apply the theme now and follow the system's changes. Call once at start. */
export function initTheme() {
  apply();
  window.matchMedia?.("(prefers-color-scheme: dark)").addEventListener?.("change", apply);
}

/** The resolved theme, re-rendering when it changes. */
export function useTheme(): "light" | "dark" {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => resolvedTheme(),
  );
}

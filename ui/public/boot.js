// Read before anything paints: the theme the person chose (or the system's)
// on <html data-theme>, so the frame in index.html shows in it. The same rule
// as design/theme.ts, which takes over once the page's script runs
// (shell/boot.test.ts holds the two to one answer).
{
  let saved = null;
  try {
    saved = window.localStorage.getItem("mcpwb.theme");
  } catch {
    saved = null;
  }
  const system = window.matchMedia?.("(prefers-color-scheme: dark)").matches === true;
  const dark = saved === "dark" || (saved !== "light" && system);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
}

// Read before anything paints: the theme the person chose (or the system's)
// on <html data-theme>, so the frame in index.html shows in it. The same rule
// as design/theme.ts, which takes over once the page's script runs
// (shell/boot.test.ts holds the two to one answer).
(function () {
  var saved = null;
  try {
    saved = window.localStorage.getItem("mcpwb.theme");
  } catch (e) {
    saved = null;
  }
  var system = window.matchMedia && window.matchMedia("(prefers-color-scheme: dark)").matches;
  var dark = saved === "dark" || (saved !== "light" && system === true);
  document.documentElement.dataset.theme = dark ? "dark" : "light";
})();

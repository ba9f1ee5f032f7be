// The window's start, told to the app: "painted" two frames after the first
// render, then "interactive" once the server list (or the first-start panel,
// or the error that stands for it) is shown and the main thread runs a timer
// within 50 ms of when it was due (an input would be answered at once). The
// servers wait for "interactive" (3 s at most), so they do not starve the
// window's start. The app logs both with the time since launch (and how much
// of it the page took, from its navigation); the startup benchmark reads them.
import type { Backend } from "./ipc";

const LATE_MS = 50;
const GIVE_UP_MS = 15_000;

export function reportStartup(backend: Pick<Backend, "windowReady">) {
  requestAnimationFrame(() =>
    requestAnimationFrame(() => {
      void backend.windowReady("painted", Math.round(performance.now())).catch(() => undefined);
      const until = performance.now() + GIVE_UP_MS;
      const probe = () => {
        const due = performance.now() + 16;
        setTimeout(() => {
          const late = performance.now() - due;
          if (late < LATE_MS && document.querySelector(".sidebar-scroll[data-settled]")) {
            void backend.windowReady("interactive", Math.round(performance.now())).catch(() => undefined);
          } else if (performance.now() < until) {
            probe();
          }
        }, 16);
      };
      probe();
    }),
  );
}

// The window: providers around the shell (toasts, tooltips, the shared
// workbench state). Everything else is in shell/ and the rooms.
import type { Backend } from "./ipc";
import { ToastProvider, TooltipProvider } from "./design";
import { Shell } from "./shell/Shell";
import { WorkbenchProvider } from "./shell/workbench";

export function App({ backend }: { backend: Backend }) {
  return (
    <ToastProvider>
      <TooltipProvider>
        <WorkbenchProvider backend={backend}>
          <Shell backend={backend} />
        </WorkbenchProvider>
      </TooltipProvider>
    </ToastProvider>
  );
}

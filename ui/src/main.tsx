import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { App } from "./App";
import { tauriBackend } from "./ipc";
import { initTheme } from "./design";
import { reportStartup } from "./startup";
import "./design/tokens.css";
import "./design/components.css";
import "./styles.css";
// Each room's styles, in the order they cascaded as one sheet.
import "./tools/tools.css";
import "./schema/schema.css";
import "./content/results.css";
import "./traffic/traffic.css";
import "./asks/asks.css";
import "./servers/servers.css";
import "./components/palette.css";
import "./chat/chat.css";
import "./settings/settings.css";

// Before the first paint: the theme the person chose (or the system's).
initTheme();

const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } },
});

const root = document.getElementById("root");
if (root) {
  createRoot(root).render(
    <StrictMode>
      <QueryClientProvider client={queryClient}>
        <App backend={tauriBackend} />
      </QueryClientProvider>
    </StrictMode>,
  );
  reportStartup(tauriBackend);
}

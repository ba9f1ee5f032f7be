// The Tools room: every server's tools and the one open; keeps its
// selection while other rooms are shown; the palette can open a tool.
import { useEffect, useState, type ComponentProps } from "react";
import { ErrorBanner } from "../components/ErrorBanner";
import type { RoomId } from "../shell/route";
import type { Workbench } from "../shell/workbench";
import { setChatDraft } from "../content/apps";
import { ToolsView } from "./ToolsView";

export function ToolsRoom({ wb, backend, open, go }: { wb: Workbench; backend: ComponentProps<typeof ToolsView>["backend"]; open?: string; go?: (room: RoomId, param?: string) => void }) {
  const [selected, setSelected] = useState<string | null>(open ?? null);
  // Opened from elsewhere (palette, History): focus goes into the tool.
  const [focusRequest, setFocusRequest] = useState(0);
  useEffect(() => {
    if (open) {
      setSelected(open);
      setFocusRequest((n) => n + 1);
    }
  }, [open]);
  return (
    <>
      {wb.tools.isError && <ErrorBanner error={wb.tools.error} onRetry={() => void wb.tools.refetch()} />}
      <ToolsView backend={backend} tools={wb.tools.data ?? []} hints={wb.cacheHints.data} loading={wb.tools.isPending} selected={selected} onSelect={setSelected} statuses={wb.statuses} focusRequest={focusRequest} changes={wb.surfaceChanges}
        onStartChat={
          go
            ? (text) => {
                setChatDraft(text);
                go("chat", "new");
              }
            : undefined
        }
      />
    </>
  );
}

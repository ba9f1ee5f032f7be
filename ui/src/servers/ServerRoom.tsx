// The room of one server: its panel, or a note when it left mcp.json.
import type { ComponentProps } from "react";
import { ServerOff } from "lucide-react";
import { EmptyState } from "../design";
import type { RoomId } from "../shell/route";
import { useTraffic, type Workbench } from "../shell/workbench";
import { ServerPanel } from "./ServerPanel";

export function ServerRoom({ wb, backend, name, go }: { wb: Workbench; backend: ComponentProps<typeof ServerPanel>["backend"]; name: string; go: (room: RoomId, param?: string) => void }) {
  const summary = wb.servers.data?.servers.find((s) => s.name === name);
  const traffic = useTraffic();
  if (!summary) {
    return <EmptyState icon={ServerOff} title={`${name} is no longer in mcp.json`} />;
  }
  return (
    <div className="room-scroll">
      <ServerPanel
        key={name}
        backend={backend}
        summary={summary}
        status={wb.statuses.find((s) => s.name === name)}
        counts={wb.counts(name)}
        names={(wb.servers.data?.servers ?? []).map((s) => s.name)}
        logs={wb.logs.filter((l) => l.server === name)}
        trafficVersion={traffic.lastSeq}
        hasProject={Boolean(wb.servers.data?.project_path)}
        change={wb.surfaceChanges[name]}
        onGone={(renamed) => (renamed ? go("server", renamed) : go("tools"))}
      />
    </div>
  );
}

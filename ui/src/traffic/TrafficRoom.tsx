// The Traffic room: the log view, following the log while it is shown and
// holding still (no fetching) while another room is.
import { useEffect, useState, type ComponentProps } from "react";
import { useTraffic, type Workbench } from "../shell/workbench";
import { TrafficView } from "./TrafficView";

export function TrafficRoom({ wb, backend, active, focusServer }: { wb: Workbench; backend: ComponentProps<typeof TrafficView>["backend"]; active: boolean; focusServer?: string }) {
  const traffic = useTraffic();
  const [seen, setSeen] = useState(traffic);
  useEffect(() => {
    if (active) setSeen(traffic);
  }, [active, traffic]);
  return <TrafficView backend={backend} version={seen.lastSeq} logSize={seen.total} servers={(wb.servers.data?.servers ?? []).map((s) => s.name)} focusServer={focusServer} />;
}

// A first start (no servers yet): a working example server in one click,
// and the servers other apps on this machine use, ready to import — so a
// new user sees a server answer in the first minute.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Import, Sparkles } from "lucide-react";
import type { ConfigBackend } from "../ipc";
import { Button, EmptyState, useToast } from "../design";
import type { RoomId } from "./route";
import { keys } from "../queries";

export function FirstStart({ backend, configPath, exists, go }: { backend: ConfigBackend; configPath: string; exists: boolean; go: (room: RoomId, param?: string) => void }) {
  const toast = useToast();
  const [adding, setAdding] = useState(false);
  const found = useQuery({ queryKey: keys.discovered(), queryFn: () => backend.discoverConfigs(), staleTime: 60_000 });
  const others = (found.data ?? []).filter((f) => f.servers.length > 0);
  return (
    <EmptyState icon={Sparkles} title={exists ? "No servers yet" : "Welcome: no mcp.json yet"}>
      <p className="muted">
        Servers you add are saved to <code className="first-start-path">{configPath}</code>, in the shape Claude Code, Cursor and others read.
      </p>
      <div className="first-start-actions">
        <Button
          variant="primary"
          icon={Sparkles}
          disabled={adding}
          onClick={() => {
            setAdding(true);
            backend
              .addExampleServer()
              .then(
                (name) => {
                  toast(`Added ${name}`, { description: "It starts now; pick it to see what it offers." });
                  go("server", name);
                },
                (e: unknown) => toast("No example server added", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
              )
              .finally(() => setAdding(false));
          }}
        >
          Add an example server
        </Button>
      </div>
      {others.length > 0 && (
        <div className="found-configs">
          <p>Other apps on this machine use these servers:</p>
          <ul>
            {others.map((f) => (
              <li key={f.path}>
                <span className="truncate" title={f.path}>
                  {f.dialect}: {f.servers.length} server{f.servers.length === 1 ? "" : "s"}
                </span>
              </li>
            ))}
          </ul>
          <Button size="sm" icon={Import} onClick={() => go("import")}>
            Import…
          </Button>
        </div>
      )}
    </EmptyState>
  );
}

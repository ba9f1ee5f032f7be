// The hosts' own config files (Claude Desktop, Claude Code, Cursor, VS Code,
// Windsurf, …) found here, each server with Tap (its entry runs through
// `mcpwb tap`: only its command and args change) and Untap (the file's bytes
// back). Nothing becomes trusted by being tapped.
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { Cable, Unplug } from "lucide-react";
import type { HostFile, SessionsBackend } from "../ipc/sessions";
import { Badge, Button, EmptyState, Skeleton, useToast } from "../design";
import { keys } from "../queries";

export function HostsPanel({ backend }: { backend: SessionsBackend }) {
  const toast = useToast();
  const queryClient = useQueryClient();
  const files = useQuery({ queryKey: keys.hostFiles(), queryFn: () => backend.hostFiles() });
  const flip = async (file: HostFile, name: string, on: boolean) => {
    try {
      const said = await backend.tapHostEntry(file.path, name, on);
      toast(on ? `${name} runs through the tap` : `${name}: untapped`, {
        description: on ? `${file.path}: restart the host; its sessions show here` : said,
      });
    } catch (e) {
      toast(on ? `${name} was not tapped` : `${name} was not put back`, { description: e instanceof Error ? e.message : String(e), tone: "danger" });
    }
    void queryClient.invalidateQueries({ queryKey: keys.hostFiles() });
  };
  if (files.isPending) return <Skeleton label="Reading the hosts' configs" />;
  const all = files.data ?? [];
  if (all.length === 0) {
    return (
      <EmptyState icon={Cable} title="No host's config found here">
        <p>
          Claude Desktop, Claude Code, Cursor, VS Code, Windsurf and the others keep their servers in known places; none is on this machine. Run a
          server through the tap by hand: <code>mcpwb tap -- COMMAND ARGS…</code>.
        </p>
      </EmptyState>
    );
  }
  return (
    <section className="hosts-panel" aria-label="Hosts' configs">
      <p className="muted">
        Tap routes a server of a host through the workbench: the host runs <code>mcpwb tap</code>, which runs the server and passes every byte unchanged;
        each connection becomes a session. Untap puts the file back as it was.
      </p>
      {all.map((file) => (
        <article key={file.path} className="host-file">
          <h3>
            {file.dialect} <code>{file.path}</code>
          </h3>
          {file.error ? (
            <p className="muted">{file.error}</p>
          ) : (
            <ul>
              {file.entries.map((e) => (
                <li key={e.name} className="host-entry">
                  <span className="host-entry-name">{e.name}</span>
                  <code className="host-entry-target">{e.target}</code>
                  {e.tapped && <Badge tone="ok">tapped</Badge>}
                  {e.remote ? (
                    <span className="muted">remote: mcpwb tap --to URL</span>
                  ) : e.tapped ? (
                    <Button size="sm" icon={Unplug} disabled={!e.untappable} onClick={() => void flip(file, e.name, false)} aria-label={`Untap ${e.name}`}>
                      Untap
                    </Button>
                  ) : (
                    <Button size="sm" icon={Cable} onClick={() => void flip(file, e.name, true)} aria-label={`Tap ${e.name}`}>
                      Tap
                    </Button>
                  )}
                </li>
              ))}
            </ul>
          )}
        </article>
      ))}
    </section>
  );
}

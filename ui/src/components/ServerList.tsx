import type { ServerList as ServerListData, ServerStatus_Serialize as ServerStatus, TransportKind } from "../bindings";
import { StateBadge, StateDetail } from "./StateBadge";

const TRANSPORT_LABEL: Record<TransportKind, string> = {
  stdio: "stdio",
  streamable_http: "HTTP",
  sse: "SSE",
  remote_auto: "remote",
};

/** The doctor's worst findings of a server, when there are any. */
function DoctorBadge({ found }: { found?: { errors: number; warnings: number } }) {
  if (!found || (found.errors === 0 && found.warnings === 0)) return null;
  const [n, word, tone] = found.errors > 0 ? [found.errors, "error", "tone-danger"] : [found.warnings, "warning", "tone-warn"];
  const label = `Doctor: ${n} ${word}${n === 1 ? "" : "s"}`;
  return (
    <span className={`badge doctor-badge ${tone}`} title={`${label} — open the server's Doctor`} aria-label={label}>
      {n} {word}
      {n === 1 ? "" : "s"}
    </span>
  );
}

export function ServerList({
  list,
  statuses,
  selected,
  onSelect,
  counts,
  doctor,
}: {
  /** The doctor's counts of a server's shape findings. */
  doctor?: (server: string) => { errors: number; warnings: number } | undefined;
  list: ServerListData;
  statuses: ServerStatus[];
  /** What a server offers, as the window's lists know it. */
  counts?: (server: string) => { tools: number; resources: number; prompts: number };
  selected?: string | null;
  onSelect?: (name: string) => void;
}) {
  const byName = new Map(statuses.map((s) => [s.name, s]));
  // An empty or missing file: the sidebar's first-start panel says what to do.
  if (!list.exists) return null;
  return (
    <>
      <ul className="server-list" data-testid="server-list">
        {list.servers.map((s) => (
          <li key={s.name} className={`server${s.disabled ? " disabled" : ""}${selected === s.name ? " selected" : ""}`}>
            <button type="button" className="server-button" title={s.target} aria-current={selected === s.name} onClick={() => onSelect?.(s.name)}>
              <span className="server-name">{s.name}</span>
              <span className="badge">{TRANSPORT_LABEL[s.transport]}</span>
              {list.project_path && (
                <span className={`badge scope-${s.scope}`} title={s.scope === "project" ? list.project_path : list.config_path}>
                  {s.scope === "project" ? "project" : "user"}
                </span>
              )}
              <StateBadge status={byName.get(s.name)} disabled={s.disabled} />
              <DoctorBadge found={doctor?.(s.name)} />
            </button>
            <span className="server-target">{s.target}</span>
            <StateDetail status={byName.get(s.name)} counts={counts?.(s.name)} />
          </li>
        ))}
      </ul>
      {list.problems.length > 0 && (
        <div className="problems" role="status">
          <h3>Entries skipped</h3>
          <ul>
            {list.problems.map((p) => (
              <li key={p.pointer}>
                <code>{p.pointer}</code> {p.message}
              </li>
            ))}
          </ul>
        </div>
      )}
    </>
  );
}

import type { ServerList as ServerListData, ServerStatus_Serialize as ServerStatus, TransportKind } from "../bindings";
import { StateBadge, StateDetail } from "./StateBadge";
import { CircleX, TriangleAlert } from "lucide-react";
import { plural } from "../design";

const TRANSPORT_LABEL: Record<TransportKind, string> = {
  stdio: "stdio",
  streamable_http: "HTTP",
  sse: "SSE",
  remote_auto: "remote",
};

type Found = { errors: number; warnings: number; items: number };

/** What the doctor found of a server (each code once), when it found
 * anything: a button that opens the server's Doctor on those findings. */
function DoctorBadge({ found, onOpen }: { found?: Found; onOpen: () => void }) {
  if (!found || (found.errors === 0 && found.warnings === 0)) return null;
  // Kinds (codes), not findings: the Doctor itself counts each finding
  // ("19 warnings"), which a bare "2 warnings" here contradicted.
  const kinds = (n: number, what: string) => `${plural(n, "kind")} of ${what}`;
  const parts = [found.errors > 0 && kinds(found.errors, "error"), found.warnings > 0 && kinds(found.warnings, "warning")].filter(Boolean);
  const label = `Doctor: ${parts.join(", ")} in ${plural(found.items, "item")}`;
  // Compact (a narrow sidebar keeps the server's name): icons and counts
  // shown, the words there for a screen reader (its name is its text).
  return (
    <button type="button" className={`badge doctor-badge ${found.errors > 0 ? "tone-danger" : "tone-warn"}`} title={`${label} — open the server's Doctor`} onClick={onOpen}>
      <span className="sr-only">Doctor: </span>
      {found.errors > 0 && (
        <span className="doctor-count">
          <CircleX aria-hidden size={12} />
          {found.errors}
          <span className="sr-only"> {found.errors === 1 ? "kind of error" : "kinds of error"}</span>
        </span>
      )}
      {found.warnings > 0 && (
        <span className="doctor-count">
          <TriangleAlert aria-hidden size={12} />
          {found.errors > 0 && <span className="sr-only">, </span>}
          {found.warnings}
          <span className="sr-only"> {found.warnings === 1 ? "kind of warning" : "kinds of warning"}</span>
        </span>
      )}
      <span className="sr-only"> in {plural(found.items, "item")}</span>
    </button>
  );
}

export function ServerList({
  list,
  statuses,
  selected,
  onSelect,
  counts,
  doctor,
  onDoctor,
}: {
  /** The doctor's counts of a server's findings. */
  doctor?: (server: string) => Found | undefined;
  /** Open a server on its Doctor (the badge). */
  onDoctor?: (name: string) => void;
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
            </button>
            <DoctorBadge found={doctor?.(s.name)} onOpen={() => (onDoctor ?? onSelect)?.(s.name)} />
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

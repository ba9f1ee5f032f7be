// The window's shared state, in one provider: the server list and live
// statuses, the catalog, log messages, subscribed resources that changed,
// the traffic log's size, what the last change of mcp.json on disk did.
// Every event the backend sends lands here once; rooms read it with
// `useWorkbench()` and own the rest of their state themselves.
import { createContext, useContext, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useQuery, useQueryClient, type UseQueryResult } from "@tanstack/react-query";
import type { Backend, PromptRow, ResourceRow, ToolRow } from "../ipc";
import type { ListCache, SkillRow } from "../ipc/resources";
import type { DoctorCount, SurfaceChange } from "../ipc/doctor";
import type { ServerList, ServerStatus_Serialize as ServerStatus } from "../bindings";
import { afterCatalog, afterConfig, keys } from "../queries";
import { configNews } from "./configNews";

export interface LogLine {
  server: string;
  level: string;
  data: string;
  /** When it arrived (ms since the epoch). */
  at: number;
}

/**
 * What every room may read. The door to the Rust side is not in it: each
 * room is handed only its areas of it (rooms.tsx), so a room cannot reach
 * commands it has no business with.
 */
export interface Workbench {
  servers: UseQueryResult<ServerList>;
  statuses: ServerStatus[];
  tools: UseQueryResult<ToolRow[]>;
  resources: UseQueryResult<ResourceRow[]>;
  prompts: UseQueryResult<PromptRow[]>;
  skills: UseQueryResult<SkillRow[]>;
  /** What each server's lists said of their freshness (read again with the lists; labels count down by themselves). */
  cacheHints: UseQueryResult<ListCache[]>;
  /** Log messages servers sent (`notifications/message`), newest last. */
  logs: LogLine[];
  /** How many times each subscribed resource ("server uri") changed since the window opened. */
  updated: Record<string, number>;
  /** Set while mcp.json on disk cannot be used. */
  configError: string | null;
  /** What the last outside change of mcp.json did. */
  configNotice: string | null;
  dismissNotice: () => void;
  /** Bumped on every change of the file on disk. */
  diskVersion: number;
  /** What a server offers, as the window's lists know it. */
  counts: (server: string) => { tools: number; resources: number; templates: number; prompts: number };
  /** The doctor's shape checks of each ready server, counted (the sidebar's badge). */
  doctor: (server: string) => DoctorCount | undefined;
  /** What changed in each server's surface when it last came back. */
  surfaceChanges: Record<string, SurfaceChange>;
}

const CATALOG_COALESCE_MS = 100;

const Ctx = createContext<Workbench | null>(null);
/** The traffic log's size and newest entry: its own context, since it
 * changes four times a second while servers talk, and only the traffic
 * count and views that show the log need to follow it. */
const TrafficCtx = createContext<{ total: number; lastSeq: number }>({ total: 0, lastSeq: 0 });

export function useTraffic() {
  return useContext(TrafficCtx);
}

/** The window's shared state, or null outside the provider (views tested alone). */
export function useMaybeWorkbench(): Workbench | null {
  return useContext(Ctx);
}

export function useWorkbench(): Workbench {
  const wb = useContext(Ctx);
  if (!wb) throw new Error("useWorkbench outside WorkbenchProvider");
  return wb;
}

/**
 * Subscribe while mounted; `subscribe` resolves to an unsubscribe. Events
 * sent before the subscription took hold are missed, so `caughtUp` runs
 * once it has (refetch what those events would have refreshed).
 */
function useListen(subscribe: () => Promise<() => void>, deps: unknown[], caughtUp?: () => void) {
  useEffect(() => {
    let cancelled = false;
    let unlisten: (() => void) | undefined;
    void subscribe().then((u) => {
      if (cancelled) u();
      else {
        unlisten = u;
        caughtUp?.();
      }
    });
    return () => {
      cancelled = true;
      unlisten?.();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
}

export function WorkbenchProvider({ backend, children }: { backend: Backend; children: ReactNode }) {
  const queryClient = useQueryClient();
  const servers = useQuery({ queryKey: keys.servers(), queryFn: () => backend.listServers() });
  // When each server's last status event came: a fetched snapshot older
  // than that must not overwrite it (events and fetches race).
  const statusEventAt = useRef(new Map<string, number>());
  const statuses = useQuery({
    queryKey: keys.statuses(),
    queryFn: async () => {
      const asked = performance.now();
      const fetched = await backend.serverStatuses();
      const current = queryClient.getQueryData<ServerStatus[]>(keys.statuses()) ?? [];
      return fetched.map((s) => {
        const newer = (statusEventAt.current.get(s.name) ?? -1) > asked;
        return newer ? (current.find((c) => c.name === s.name) ?? s) : s;
      });
    },
  });
  const tools = useQuery({ queryKey: keys.tools(), queryFn: () => backend.listTools() });
  const resources = useQuery({ queryKey: keys.resources(), queryFn: () => backend.listResources() });
  const prompts = useQuery({ queryKey: keys.prompts(), queryFn: () => backend.listPrompts() });
  const skills = useQuery({ queryKey: keys.skills(), queryFn: () => backend.listSkills() });
  const cacheHints = useQuery({ queryKey: keys.cacheHints(), queryFn: () => backend.cacheHints() });
  const [logs, setLogs] = useState<LogLine[]>([]);
  const [updated, setUpdated] = useState<Record<string, number>>({});
  const [traffic, setTraffic] = useState({ total: 0, lastSeq: 0 });
  const [configError, setConfigError] = useState<string | null>(null);
  const [configNotice, setConfigNotice] = useState<string | null>(null);
  const [diskVersion, setDiskVersion] = useState(0);
  const doctor = useQuery({ queryKey: keys.doctorCounts(), queryFn: () => backend.doctorCounts() });
  const [surfaceChanges, setSurfaceChanges] = useState<Record<string, SurfaceChange>>({});
  useListen(() => backend.onSurfaceChanged((change) => setSurfaceChanges((old) => ({ ...old, [change.server]: change }))), [backend]);

  useListen(() => backend.onTrafficGrew((total, lastSeq) => setTraffic({ total, lastSeq })), [backend]);
  // A call is kept by the History's writer a moment after it ends (a chat's,
  // the bridge's, the window's own): each open tool's recent calls follow
  // what was written, not what was there when the call came back.
  useListen(() => backend.onHistoryGrew(() => void queryClient.invalidateQueries({ queryKey: keys.toolHistories() })), [backend, queryClient]);
  useEffect(() => {
    let cancelled = false;
    void backend
      .trafficPage({ limit: 0 })
      .then((page) => !cancelled && setTraffic((t) => (t.lastSeq >= page.last_seq ? t : { total: page.total, lastSeq: page.last_seq })))
      .catch(() => undefined);
    return () => {
      cancelled = true;
    };
  }, [backend]);
  useListen(
    () =>
      backend.onServerStatus((status) => {
        statusEventAt.current.set(status.name, performance.now());
        queryClient.setQueryData<ServerStatus[]>(keys.statuses(), (old = []) => [...old.filter((s) => s.name !== status.name), status]);
      }),
    [backend, queryClient],
    () => void queryClient.invalidateQueries({ queryKey: keys.statuses() }),
  );
  // Lists changing come in bursts (fourteen servers coming up in a second,
  // each with its tools, resources and prompts): the lists are asked again
  // once per burst, 100 ms after its first change, not once per change.
  const catalogTimer = useRef<number | null>(null);
  const catalogChanged = () => {
    if (catalogTimer.current !== null) return;
    catalogTimer.current = window.setTimeout(() => {
      catalogTimer.current = null;
      afterCatalog(queryClient);
    }, CATALOG_COALESCE_MS);
  };
  useEffect(
    () => () => {
      if (catalogTimer.current !== null) window.clearTimeout(catalogTimer.current);
    },
    [],
  );
  useListen(() => backend.onCatalogChanged(catalogChanged), [backend, queryClient], catalogChanged);
  useListen(() => backend.onServerLog((server, level, data) => setLogs((old) => [...old.slice(-1999), { server, level, data, at: Date.now() }])), [backend]);
  useListen(
    () => backend.onResourceUpdated((server, uri) => setUpdated((old) => ({ ...old, [`${server} ${uri}`]: (old[`${server} ${uri}`] ?? 0) + 1 }))),
    [backend],
  );
  useListen(
    () =>
      backend.onConfigChanged((change) => {
        setConfigError(change.error ?? null);
        setDiskVersion((v) => v + 1);
        const parts = configNews(change);
        // The app's own saves are not news (the control that saved says so).
        if (!change.own) setConfigNotice(change.error || parts.length === 0 ? null : `mcp.json changed on disk: ${parts.join("; ")}.`);
        afterConfig(queryClient);
      }),
    [backend, queryClient],
  );

  const value = useMemo<Workbench>(() => {
    const count = <T extends { server: string }>(list: T[] | undefined, name: string) => (list ?? []).filter((x) => x.server === name).length;
    return {
      servers,
      statuses: statuses.data ?? [],
      tools,
      resources,
      prompts,
      skills,
      cacheHints,
      logs,
      updated,
      configError,
      configNotice,
      dismissNotice: () => setConfigNotice(null),
      diskVersion,
      counts: (name) => ({
        tools: count(tools.data, name),
        // Resources and templates apart, as Try it and mcpwb count them.
        resources: count(resources.data?.filter((r) => !r.template), name),
        templates: count(resources.data?.filter((r) => r.template), name),
        prompts: count(prompts.data, name),
      }),
      doctor: (name) => doctor.data?.find((d) => d.server === name),
      surfaceChanges,
    };
  }, [servers, statuses.data, tools, resources, prompts, skills, cacheHints, logs, updated, configError, configNotice, diskVersion, doctor.data, surfaceChanges]);
  return (
    <Ctx.Provider value={value}>
      <TrafficCtx.Provider value={traffic}>{children}</TrafficCtx.Provider>
    </Ctx.Provider>
  );
}

// The doctor's half of the door to the Rust side: a server's findings (on
// demand), the sidebar's counts, what changed in a surface since the server
// was last ready, and reloads on change. `Backend` (index.ts) includes it.
import { commands, events, type DoctorCount, type DoctorReport_Serialize as DoctorReport, type ErrorInfo, type PublishReport_Serialize as PublishReport, type SurfaceChange } from "../bindings";

export type { DoctorCount, DoctorReport, PublishReport, SurfaceChange };
export type { Change, Finding, Severity } from "../bindings";

export interface DoctorBackend {
  /** Examine a server; `probe` calls its read-only tools, `eras` connects once per protocol era. */
  runDoctor(server: string, probe: boolean, eras: boolean): Promise<DoctorReport>;
  /** Every ready server's findings, counted: its last run while current, else the shape checks. */
  doctorCounts(): Promise<DoctorCount[]>;
  /** A server's last run, while its surface is what it examined. */
  lastDoctorRun(server: string): Promise<DoctorReport | null>;
  /** What changed in a server's surface the last time it came back. */
  surfaceChange(server: string): Promise<SurfaceChange | null>;
  onSurfaceChanged(listener: (change: SurfaceChange) => void): Promise<() => void>;
  /** A server's `dev.watch` files changed: it is restarting. */
  onDevReloaded(listener: (server: string, files: string[]) => void): Promise<() => void>;
  /** Check a server's folder before publishing; `run` starts each way with each host's PATH. */
  /** `shown`: the fingerprint of the check the person saw; with `run` and none, nothing starts. */
  publishCheck(folder: string, run: boolean, shown: string | null): Promise<PublishReport>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriDoctorBackend(unwrap: Unwrap): DoctorBackend {
  return {
    runDoctor: async (server, probe, eras) => unwrap(await commands.runDoctor(server, probe, eras)),
    doctorCounts: async () => unwrap(await commands.doctorCounts()),
    lastDoctorRun: async (server) => unwrap(await commands.lastDoctorRun(server)),
    surfaceChange: async (server) => unwrap(await commands.surfaceChange(server)),
    onSurfaceChanged: (listener) => events.surfaceChanged.listen((e) => listener(e.payload.change)),
    onDevReloaded: (listener) => events.devReloaded.listen((e) => listener(e.payload.server, e.payload.files)),
    publishCheck: async (folder, run, shown) => unwrap(await commands.publishCheck(folder, run, shown)),
  };
}

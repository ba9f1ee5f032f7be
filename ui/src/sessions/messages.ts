// What each kept message is, in a few words, and what a reader should
// notice: errors (a JSON-RPC error, a tool's isError), slow answers, and the
// tap's own marks (a restart, an HTTP exchange, an SSE event).
import type { TapMessage } from "../ipc/sessions";

/** An answer slower than this is marked slow. */
export const SLOW_MS = 1000;

export interface Read {
  /** Its method, or what it answers, or the tap's mark. */
  what: string;
  error: boolean;
  /** For an answer: how long after its request. */
  tookMs: number | null;
}

function parse(text: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function mark(v: Record<string, unknown>): string {
  const http = v.http as Record<string, unknown> | undefined;
  if (http) return `${String(http.method)} ${String(http.path)} → ${String(http.status)}`;
  const restart = v.restart as Record<string, unknown> | undefined;
  if (restart) return `the server restarted (${String(restart.why)}); ${String(restart.answeredWithError)} call(s) told to ask again`;
  const sse = v.sse as Record<string, unknown> | undefined;
  if (sse) return `SSE ${String(sse.event)} event`;
  return "(the tap's mark)";
}

/** What a request is about, beside its method: the tool called, the
 * prompt got, the resource read (empty when none). */
function subject(method: string, params: unknown): string {
  const p = params !== null && typeof params === "object" ? (params as Record<string, unknown>) : {};
  const name = method === "tools/call" || method === "prompts/get" ? p.name : method.startsWith("resources/") ? p.uri : undefined;
  return typeof name === "string" && name ? ` ${name}` : "";
}

/** Whether a message holds nothing (an SSE event without data): not shown. */
export function empty(m: TapMessage): boolean {
  return !m.cut && m.text.trim() === "";
}

/** Each message read, answers paired with their requests by id (and
 * named by what those asked: "result of 3 (echo)"). */
export function readAll(messages: TapMessage[]): Read[] {
  const asked = new Map<string, { at: number; subject: string }>();
  return messages.map((m) => {
    if (m.cut) return { what: "(kept cut)", error: false, tookMs: null };
    const v = parse(m.text);
    if (!v) return { what: "(not JSON)", error: false, tookMs: null };
    if (m.direction === "tap") return { what: mark(v), error: false, tookMs: null };
    const id = v.id === undefined ? undefined : JSON.stringify(v.id);
    if (typeof v.method === "string") {
      const about = subject(v.method, v.params);
      if (id !== undefined) asked.set(`${m.direction}:${id}`, { at: m.at_ms, subject: about.trim() });
      return { what: id !== undefined ? `${v.method}${about} (id ${id})` : `${v.method}${about}`, error: false, tookMs: null };
    }
    if (id === undefined) return { what: "(not JSON-RPC)", error: false, tookMs: null };
    const other = m.direction === "server" ? "host" : "server";
    const request = asked.get(`${other}:${id}`);
    const of = request?.subject ? `${id} (${request.subject})` : id;
    const result = v.result as Record<string, unknown> | undefined;
    const error = v.error !== undefined || result?.isError === true;
    return {
      what: v.error !== undefined ? `error of ${of}` : result?.isError === true ? `tool error of ${of}` : `result of ${of}`,
      error,
      tookMs: request === undefined ? null : m.at_ms - request.at,
    };
  });
}

/** The text, indented when it is JSON. */
export function pretty(m: TapMessage): string {
  try {
    return JSON.stringify(JSON.parse(m.text), null, 2);
  } catch {
    return m.text;
  }
}

/** What one message is, in a few words (no request to pair it with). */
export function summary(m: TapMessage): string {
  return readAll([m])[0]?.what ?? "";
}

// What a chat's running turn has shown so far, per chat, outside React:
// a turn keeps streaming into its chat's state while the person looks at
// another chat or another room, and the view picks it up when it returns.
import { useSyncExternalStore } from "react";
import type { AgentEvent, Approval, ChatMessage } from "../ipc/agent";
import type { ContextMeter, ErrorCode, Usage } from "../bindings";
import type { TaskState } from "../ipc/tasks";

export interface LiveCall {
  name: string;
  /** Arguments as the model writes them. */
  arguments: string;
  server?: string;
  tool?: string;
  status?: "running" | "ok" | "error" | "failed" | "denied" | "cancelled" | "pending";
  progress?: { progress: number | null; total: number | null; message: string | null };
  /** The task the call became, as its server last said. */
  task?: TaskState;
  durationMs?: number | null;
}

export interface Live {
  running: boolean;
  /** Messages stored during this turn (appended to what was opened). */
  stored: ChatMessage[];
  /** The answer being written (not stored yet). */
  text: string;
  reasoning: string;
  calls: Record<string, LiveCall>;
  approvals: Approval[];
  retrying: { attempt: number; waitMs: number; reason: string } | null;
  error: { code: ErrorCode; message: string; retryable: boolean } | null;
  notices: string[];
  loaded: string[];
  usage: { step: Usage; session: Usage; context: ContextMeter } | null;
}

const empty = (): Live => ({
  running: false,
  stored: [],
  text: "",
  reasoning: "",
  calls: {},
  approvals: [],
  retrying: null,
  error: null,
  notices: [],
  loaded: [],
  usage: null,
});

const states = new Map<string, Live>();
const listeners = new Set<() => void>();
const EMPTY = empty();
/** A chat with nothing running (a transcript shown read-only). */
export const EMPTY_LIVE: Live = EMPTY;

function set(chat: string, change: (s: Live) => Live) {
  states.set(chat, change(states.get(chat) ?? empty()));
  listeners.forEach((l) => l());
}

/** A turn begins: what the last one left is cleared, usage kept. */
export function begin(chat: string) {
  set(chat, (s) => ({ ...empty(), running: true, usage: s.usage }));
}

/** The chat was opened afresh: what was stored is in the view now. */
export function settle(chat: string) {
  set(chat, (s) => ({ ...s, stored: [], running: false }));
}

export function end(chat: string) {
  set(chat, (s) => ({ ...s, running: false, approvals: [], retrying: null }));
}

/** Fold one event of the turn into the chat's live state. */
export function apply(chat: string, e: AgentEvent) {
  set(chat, (s) => {
    switch (e.type) {
      case "message": {
        const stored = [...s.stored.filter((m) => m.id !== e.message.id), e.message];
        // The model's message replaces what was streamed of it.
        return e.message.role === "assistant" ? { ...s, stored, text: "", reasoning: "", retrying: null } : { ...s, stored };
      }
      case "text_delta":
        return { ...s, text: s.text + e.text, retrying: null };
      case "reasoning_delta":
        return { ...s, reasoning: s.reasoning + e.text };
      case "tool_call_delta":
        return { ...s, calls: { ...s.calls, [e.call_id]: { ...s.calls[e.call_id], name: e.name || s.calls[e.call_id]?.name || "", arguments: e.arguments } } };
      case "approval_needed":
        return {
          ...s,
          approvals: [...s.approvals, e.approval],
          calls: { ...s.calls, [e.approval.call_id]: { ...s.calls[e.approval.call_id], name: e.approval.qualified, arguments: "", status: "pending" } },
        };
      case "approval_resolved":
        return { ...s, approvals: s.approvals.filter((a) => a.id !== e.id) };
      case "tool_started":
        return { ...s, calls: { ...s.calls, [e.call_id]: { ...s.calls[e.call_id], name: s.calls[e.call_id]?.name ?? e.tool, arguments: JSON.stringify(e.arguments), server: e.server, tool: e.tool, status: "running" } } };
      case "tool_progress":
        return { ...s, calls: { ...s.calls, [e.call_id]: { ...s.calls[e.call_id], name: s.calls[e.call_id]?.name ?? "", arguments: s.calls[e.call_id]?.arguments ?? "", progress: { progress: e.progress, total: e.total, message: e.message } } } };
      case "tool_task":
        return { ...s, calls: { ...s.calls, [e.call_id]: { ...s.calls[e.call_id], name: s.calls[e.call_id]?.name ?? "", arguments: s.calls[e.call_id]?.arguments ?? "", task: e.task as TaskState } } };
      case "tool_finished":
        return { ...s, calls: { ...s.calls, [e.call_id]: { ...s.calls[e.call_id], name: s.calls[e.call_id]?.name ?? "", arguments: s.calls[e.call_id]?.arguments ?? "", status: e.status, durationMs: e.duration_ms } } };
      case "tools_loaded":
        return { ...s, loaded: [...s.loaded, ...e.names] };
      case "notice":
        return { ...s, notices: [...s.notices, e.text] };
      case "retrying":
        return { ...s, retrying: { attempt: e.attempt, waitMs: e.wait_ms, reason: e.reason } };
      case "usage":
        return { ...s, usage: { step: e.step, session: e.session, context: e.context } };
      case "error":
        return { ...s, error: { code: e.code, message: e.message, retryable: e.retryable } };
      case "end":
        return { ...s, running: false, approvals: [], retrying: null };
    }
  });
}

export function useLive(chat: string | null): Live {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => (chat ? (states.get(chat) ?? EMPTY) : EMPTY),
  );
}

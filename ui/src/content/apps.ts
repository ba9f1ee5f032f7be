// MCP Apps in the window: which tools have one, who may call a tool, and
// how a message an App writes outside a chat becomes a new chat's draft.

/** The `ui://` resource a tool's results are shown with. */
export function appUri(tool: Record<string, unknown> | null | undefined): string | null {
  const meta = (tool?._meta ?? {}) as Record<string, unknown>;
  const ui = (meta.ui ?? {}) as Record<string, unknown>;
  const uri = typeof ui.resourceUri === "string" ? ui.resourceUri : typeof meta["ui/resourceUri"] === "string" ? (meta["ui/resourceUri"] as string) : null;
  return uri && uri.startsWith("ui://") ? uri : null;
}

/** Whether only Apps may call the tool (its visibility leaves out "model"). */
export function appOnly(tool: Record<string, unknown> | null | undefined): boolean {
  const ui = ((tool?._meta ?? {}) as Record<string, unknown>).ui as { visibility?: unknown } | undefined;
  return Array.isArray(ui?.visibility) && !ui.visibility.includes("model");
}

const DRAFT = "mcpwb.chat.draft";

/** Keep `text` for the next chat's composer. */
export function setChatDraft(text: string) {
  sessionStorage.setItem(DRAFT, text);
}

/** The draft kept for a chat's composer (taken: once). */
export function takeChatDraft(): string {
  const text = sessionStorage.getItem(DRAFT) ?? "";
  sessionStorage.removeItem(DRAFT);
  return text;
}

/** A tool's definition as the window's catalog has it (null outside the window). */
export function toolDefinition(tools: { server: string; tool: unknown }[] | undefined, server: string | null | undefined, name: string | null | undefined): Record<string, unknown> | null {
  if (!tools || !server || !name) return null;
  const row = tools.find((t) => t.server === server && (t.tool as { name?: unknown }).name === name);
  return row ? (row.tool as Record<string, unknown>) : null;
}

/**
 * Best-effort arguments from JSON still being written (a model streaming a
 * call): unclosed strings, arrays and objects closed, a dangling key or
 * comma dropped. Undefined when nothing usable is there yet.
 */
export function partialJson(text: string): Record<string, unknown> | undefined {
  const attempt = (t: string) => {
    const closers: string[] = [];
    let inString = false;
    let escaped = false;
    for (const ch of t) {
      if (inString) {
        if (escaped) escaped = false;
        else if (ch === "\\") escaped = true;
        else if (ch === '"') inString = false;
        continue;
      }
      if (ch === '"') inString = true;
      else if (ch === "{") closers.push("}");
      else if (ch === "[") closers.push("]");
      else if (ch === "}" || ch === "]") closers.pop();
    }
    let body = inString ? `${t}"` : t;
    body = body.replace(/[,:]\s*$/, "");
    try {
      const v = JSON.parse(body + closers.reverse().join("")) as unknown;
      return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
    } catch {
      return undefined;
    }
  };
  const trimmed = text.trim();
  if (!trimmed.startsWith("{")) return undefined;
  // Whole, or cut back to the last complete member.
  for (let end = trimmed.length; end > 0; end = trimmed.lastIndexOf(",", end - 1)) {
    const v = attempt(trimmed.slice(0, end));
    if (v) return v;
    if (end <= 1) break;
  }
  return attempt("{");
}

// What a server says about a tool (its annotations), as icons with words
// for screen readers and a tooltip. These are hints from the server, not
// guarantees.
import { Eye, Globe, Repeat, TriangleAlert } from "lucide-react";
import type { LucideIcon } from "lucide-react";

const HINTS: { key: string; on: boolean; icon: LucideIcon; label: string; tone: string }[] = [
  { key: "readOnlyHint", on: true, icon: Eye, label: "read-only", tone: "ok" },
  { key: "destructiveHint", on: true, icon: TriangleAlert, label: "destructive", tone: "danger" },
  { key: "idempotentHint", on: true, icon: Repeat, label: "idempotent", tone: "info" },
  { key: "openWorldHint", on: true, icon: Globe, label: "open-world", tone: "neutral" },
];

/** The annotations that are set, as (label, tone) pairs. */
export function annotationList(annotations: unknown): { label: string; tone: string; icon: LucideIcon }[] {
  const a = (annotations ?? {}) as Record<string, unknown>;
  // A destructive hint only means something for a tool that is not read-only.
  return HINTS.filter((h) => a[h.key] === h.on && !(h.key === "destructiveHint" && a.readOnlyHint === true));
}

export function AnnotationIcons({ annotations }: { annotations: unknown }) {
  const list = annotationList(annotations);
  if (list.length === 0) return null;
  return (
    <span className="annotation-icons">
      {list.map((h) => (
        <span key={h.label} role="img" aria-label={h.label} className={`annotation tone-${h.tone}`} title={`${h.label} (the server's hint)`}>
          <h.icon aria-hidden size={12} />
        </span>
      ))}
    </span>
  );
}

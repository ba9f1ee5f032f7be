// A list to pick from beside the picked item's detail: the shape of the
// resources and prompts views.
import type { ReactNode } from "react";

export type PickItem = { key: string; index: number; title: ReactNode; server: string; code: string; data?: Record<string, string> };

export function PickList({
  label,
  items,
  selected,
  onSelect,
  top,
  detail,
  empty,
}: {
  label: string;
  items: PickItem[];
  selected: number | null;
  onSelect: (index: number) => void;
  /** Above the list: a search field, an empty-list hint. */
  top?: ReactNode;
  /** The picked item's detail (null: nothing picked). */
  detail: ReactNode | null;
  empty: { title: string; text: string };
}) {
  return (
    <div className="tools-view">
      <div className="tool-list">
        {top}
        <div className="tool-scroller" role="listbox" aria-label={label}>
          {items.map((item) => (
            <div
              key={item.key}
              role="option"
              aria-selected={item.index === selected}
              className={item.index === selected ? "tool-row selected" : "tool-row"}
              onClick={() => onSelect(item.index)}
              {...item.data}
            >
              <span className="tool-name">{item.title}</span>
              <span className="tool-meta">
                {item.server} · <code>{item.code}</code>
              </span>
            </div>
          ))}
        </div>
      </div>
      <div className="tool-detail">
        {detail ?? (
          <div className="empty-state">
            <h2>{empty.title}</h2>
            <p>{empty.text}</p>
          </div>
        )}
      </div>
    </div>
  );
}

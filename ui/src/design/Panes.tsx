// Resizable, collapsible panes whose sizes are remembered across starts
// (react-resizable-panels, layouts kept in localStorage by group id).
// Separators are keyboard-operable (arrow keys) and labelled.
import type { ReactNode } from "react";
import { Group, Panel, Separator, useDefaultLayout } from "react-resizable-panels";

export function Panes({ id, children, vertical = false }: { id: string; children: ReactNode; vertical?: boolean }) {
  const { defaultLayout, onLayoutChanged } = useDefaultLayout({ id: `mcpwb.panes.${id}`, storage: localStorage });
  return (
    <Group
      id={id}
      orientation={vertical ? "vertical" : "horizontal"}
      defaultLayout={defaultLayout}
      onLayoutChanged={onLayoutChanged}
      className="panes"
    >
      {children}
    </Group>
  );
}

export function Pane({
  id,
  children,
  defaultSize,
  minSize,
  maxSize,
  collapsible,
  className,
}: {
  id: string;
  children: ReactNode;
  /** Pixels (number) or percent (string, e.g. "30"). */
  defaultSize?: number | string;
  minSize?: number | string;
  maxSize?: number | string;
  collapsible?: boolean;
  className?: string;
}) {
  return (
    <Panel id={id} defaultSize={defaultSize} minSize={minSize} maxSize={maxSize} collapsible={collapsible} collapsedSize={0} className={`pane${className ? ` ${className}` : ""}`}>
      {children}
    </Panel>
  );
}

export function PaneHandle({ label }: { label: string }) {
  return <Separator className="pane-handle" aria-label={label} />;
}

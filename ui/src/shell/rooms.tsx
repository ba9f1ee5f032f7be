// The window's rooms, one entry each: its name, icon, whether it is in the
// room bar (with a count), and how it renders. A new area (sign-in, the
// bridge, Apps, history) is a new folder and one entry here — App only
// frames them. Rooms in the bar stay mounted once opened, so a selection,
// a scroll position or a half-typed form survives switching away.
import { lazy } from "react";
import type { ReactNode } from "react";
import { ArrowLeftRight, BookOpen, Cable, FileCog, FileText, FlaskConical, History, Import, Library, MessageSquare, MessagesSquare, Plus, Server, Settings, Radio, Wrench } from "lucide-react";
import type { LucideIcon } from "lucide-react";
import type { RoomId } from "./route";
import type { Backend } from "../ipc";
import type { Workbench } from "./workbench";
import { ToolsRoom } from "../tools/ToolsRoom";
import { ServerRoom } from "../servers/ServerRoom";
import { ServerForm } from "../servers/ServerForm";

// The Tools room paints with the window; the others load on first visit (the
// editor and the chat carry most of the code), so the first paint waits for
// less. The Shell shows a placeholder while one loads.
const ChatRoom = lazy(() => import("../chat/ChatRoom").then((m) => ({ default: m.ChatRoom })));
const ResourcesView = lazy(() => import("../resources/ResourcesView").then((m) => ({ default: m.ResourcesView })));
const PromptsView = lazy(() => import("../resources/PromptsView").then((m) => ({ default: m.PromptsView })));
const SkillsView = lazy(() => import("../resources/SkillsView").then((m) => ({ default: m.SkillsView })));
const TrafficRoom = lazy(() => import("../traffic/TrafficRoom").then((m) => ({ default: m.TrafficRoom })));
const RawEditor = lazy(() => import("../servers/RawEditor").then((m) => ({ default: m.RawEditor })));
const RegistryRoom = lazy(() => import("../registry/RegistryRoom").then((m) => ({ default: m.RegistryRoom })));
const ImportView = lazy(() => import("../servers/ImportView").then((m) => ({ default: m.ImportView })));
const BridgeRoom = lazy(() => import("../bridge/BridgeRoom").then((m) => ({ default: m.BridgeRoom })));
const HistoryRoom = lazy(() => import("../history/HistoryRoom").then((m) => ({ default: m.HistoryRoom })));
const SuitesRoom = lazy(() => import("../suites/SuitesRoom").then((m) => ({ default: m.SuitesRoom })));
const SessionsRoom = lazy(() => import("../sessions/SessionsRoom").then((m) => ({ default: m.SessionsRoom })));
const SettingsRoom = lazy(() => import("../settings/SettingsRoom").then((m) => ({ default: m.SettingsRoom })));

export interface RoomProps {
  wb: Workbench;
  /** The whole door to the Rust side: each room is handed its own areas of it. */
  backend: Backend;
  /** Whether the room is the one shown (kept-alive rooms pause when not). */
  active: boolean;
  param?: string;
  go: (room: RoomId, param?: string) => void;
}

export interface Room {
  id: RoomId;
  label: string;
  icon: LucideIcon;
  /** In the room bar (kept alive), or opened from elsewhere (forms, a server). */
  nav: boolean;
  count?: (wb: Workbench, traffic: { total: number }) => number | undefined;
  render: (props: RoomProps) => ReactNode;
}

const serverNames = (wb: Workbench) => (wb.servers.data?.servers ?? []).map((s) => s.name);
const hasProject = (wb: Workbench) => Boolean(wb.servers.data?.project_path);

export const ROOMS: Room[] = [
  {
    id: "chat",
    label: "Chat",
    icon: MessagesSquare,
    nav: true,
    render: ({ wb, backend, active, param, go }) => <ChatRoom wb={wb} backend={backend} active={active} chatId={param} go={go} />,
  },
  {
    id: "tools",
    label: "Tools",
    icon: Wrench,
    nav: true,
    count: (wb) => wb.tools.data?.length,
    render: ({ wb, backend, param, go }) => <ToolsRoom wb={wb} backend={backend} open={param} go={go} />,
  },
  {
    id: "resources",
    label: "Resources",
    icon: FileText,
    nav: true,
    count: (wb) => wb.resources.data?.length,
    render: ({ wb, backend }) => <ResourcesView backend={backend} rows={wb.resources.data ?? []} updated={wb.updated} hints={wb.cacheHints.data} statuses={wb.statuses} />,
  },
  {
    id: "prompts",
    label: "Prompts",
    icon: MessageSquare,
    nav: true,
    count: (wb) => wb.prompts.data?.length,
    render: ({ wb, backend }) => <PromptsView backend={backend} rows={wb.prompts.data ?? []} hints={wb.cacheHints.data} statuses={wb.statuses} />,
  },
  {
    id: "skills",
    label: "Skills",
    icon: BookOpen,
    nav: true,
    count: (wb) => wb.skills.data?.length,
    render: ({ wb, backend }) => <SkillsView backend={backend} rows={wb.skills.data ?? []} copy={(t) => backend.copyText(t)} hints={wb.cacheHints.data} />,
  },
  {
    id: "traffic",
    label: "Traffic",
    icon: Radio,
    nav: true,
    count: (_, traffic) => traffic.total,
    render: ({ wb, backend, active, param }) => <TrafficRoom wb={wb} backend={backend} active={active} focusServer={param} />,
  },
  {
    id: "history",
    label: "History",
    icon: History,
    nav: true,
    render: ({ wb, backend, active, param, go }) => <HistoryRoom wb={wb} backend={backend} active={active} open={param} go={go} />,
  },
  {
    id: "suites",
    label: "Suites",
    icon: FlaskConical,
    nav: true,
    render: ({ backend, go }) => <SuitesRoom backend={backend} go={go} />,
  },
  {
    id: "sessions",
    label: "Sessions",
    icon: ArrowLeftRight,
    nav: true,
    render: ({ wb, backend, active, go }) => <SessionsRoom backend={backend} active={active} go={go} servers={serverNames(wb)} />,
  },
  {
    id: "server",
    label: "Server",
    icon: Server,
    nav: false,
    render: ({ wb, backend, param, go }) => (param ? <ServerRoom key={param} wb={wb} backend={backend} name={param} go={go} /> : null),
  },
  {
    id: "add",
    label: "Add server",
    icon: Plus,
    nav: false,
    render: ({ wb, backend, go }) => (
      <div className="room-scroll">
        <ServerForm
          backend={backend}
          existingNames={serverNames(wb)}
          hasProject={hasProject(wb)}
          onDone={(name) => (name ? go("server", name) : go("tools"))}
        />
      </div>
    ),
  },
  {
    id: "config",
    label: "Edit mcp.json",
    icon: FileCog,
    nav: false,
    render: ({ wb, backend, go }) => <RawEditor backend={backend} onClose={() => go("tools")} diskVersion={wb.diskVersion} hasProject={hasProject(wb)} />,
  },
  {
    id: "import",
    label: "Import from other clients",
    icon: Import,
    nav: false,
    render: ({ wb, backend, go }) => (
      <div className="room-scroll">
        <ImportView backend={backend} ours={serverNames(wb)} onDone={() => go("tools")} />
      </div>
    ),
  },
  {
    id: "registry",
    label: "MCP Registry",
    icon: Library,
    nav: false,
    render: ({ wb, backend, go, param }) => (
      <RegistryRoom backend={backend} existingNames={serverNames(wb)} hasProject={hasProject(wb)} onAdded={(name) => go("server", name)} dropped={param} />
    ),
  },
  {
    id: "bridge",
    label: "Bridge",
    icon: Cable,
    nav: false,
    render: ({ backend }) => <BridgeRoom backend={backend} />,
  },
  {
    id: "settings",
    label: "Settings",
    icon: Settings,
    nav: false,
    render: ({ wb, backend }) => <SettingsRoom wb={wb} backend={backend} />,
  },
];

export function room(id: RoomId): Room {
  const found = ROOMS.find((r) => r.id === id) ?? ROOMS.find((r) => r.id === "tools");
  if (!found) throw new Error(`no room ${id}`);
  return found;
}

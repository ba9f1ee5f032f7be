// Where the window is: a room and, for some rooms, what is open in it
// (a server's name, a tool's qualified name, a chat's id). The main rooms
// are remembered across starts; forms are not.
import { useCallback, useState } from "react";

export type RoomId = "chat" | "tools" | "resources" | "prompts" | "skills" | "traffic" | "history" | "suites" | "sessions" | "server" | "add" | "config" | "import" | "registry" | "settings" | "bridge";

export interface Route {
  room: RoomId;
  param?: string;
}

const KEY = "mcpwb.tab";
const REMEMBERED: RoomId[] = ["chat", "tools", "resources", "prompts", "skills", "traffic", "history", "suites", "sessions"];

function saved(): Route {
  const room = localStorage.getItem(KEY) as RoomId | null;
  return { room: room && REMEMBERED.includes(room) ? room : "tools" };
}

export function useRoute(): [Route, (room: RoomId, param?: string) => void] {
  const [route, setRoute] = useState<Route>(saved);
  const go = useCallback((room: RoomId, param?: string) => {
    setRoute({ room, param });
    if (REMEMBERED.includes(room)) localStorage.setItem(KEY, room);
  }, []);
  return [route, go];
}

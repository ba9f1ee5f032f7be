// The bridge (every tool as one MCP server on 127.0.0.1): state, on/off, token.
// Its half of the door to the Rust side; `Backend` (index.ts) includes it.
import { commands, type BridgeStatus_Serialize as BridgeStatus, type ErrorInfo } from "../bindings";

export interface BridgeBackend {
  /** The bridge (every tool as one MCP server on 127.0.0.1): state, callers, waiting calls, snippets. */
  bridgeStatus(): Promise<BridgeStatus>;
  /** Turn the bridge on (on `port`) or off; remembered for the next start. */
  bridgeSet(on: boolean, port: number): Promise<BridgeStatus>;
  /** A new token (clients with the old one are refused). */
  bridgeNewToken(): Promise<BridgeStatus>;
}

type Outcome<T> = { status: "ok"; data: T } | { status: "error"; error: ErrorInfo };
type Unwrap = <T>(outcome: Outcome<T>) => T;

export function tauriBridgeBackend(unwrap: Unwrap): BridgeBackend {
  return {
    bridgeStatus: async () => unwrap(await commands.bridgeStatus()),
    bridgeSet: async (on, port) => unwrap(await commands.bridgeSet(on, port)),
    bridgeNewToken: async () => unwrap(await commands.bridgeNewToken()),
  };
}

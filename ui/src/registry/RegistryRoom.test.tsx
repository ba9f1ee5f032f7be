// The Registry room: a server picked shows the entry it becomes; Add sends
// what the form holds — a pick list's shown default as chosen, an empty
// field as "ask later" — and a deprecated version waits for the person's
// say-so.
import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { ToastProvider } from "../design";
import type { PickedBundle, RegistryAdd, RegistryBackend, RegistryServer, RegistryShown } from "../ipc";
import { pick } from "../test/select";
import { RegistryRoom } from "./RegistryRoom";

const server = (version: string, deprecated = false): RegistryServer => ({
  name: "io.github.example/weather",
  version,
  title: "Weather",
  description: "Forecasts",
  deprecated,
  statusMessage: deprecated ? "Use 1.4.0." : null,
  publishedAt: null,
  isLatest: !deprecated,
  websiteUrl: null,
  repository: null,
});

const dropped = (path: string): PickedBundle => ({
  path,
  shown: {
    name: "demo-bundle",
    displayName: "Demo (bundled)",
    version: "0.1.0",
    description: "The demo server, as a bundle",
    author: "Workbench e2e",
    signature: path.includes("changed")
      ? { status: "broken", said: "its signature does not hold (the bundle's bytes are not those that were signed): it is not installed", publisher: null, issuer: null, validTo: null, fingerprint: null }
      : { status: "unsigned", said: "unsigned: nobody vouches for who made it", publisher: null, issuer: null, validTo: null, fingerprint: null },
    sha256: "ab".repeat(32),
    serverType: "binary",
    fields: [{ key: "token", title: "Token", description: "The token it needs", kind: "string", required: true, sensitive: true, multiple: false, default: null }],
    tools: [],
  },
});

function backend(deprecated: boolean) {
  const added: RegistryAdd[] = [];
  const shown = (version: string): RegistryShown => ({
    server: server(version, deprecated),
    document: {},
    packages: ["pypi mcp-weather 1.4.0"],
    remotes: [],
    refusal: null,
    staleMinutes: null,
    preview: {
      name: "weather",
      entry: { command: "uvx", args: ["mcp-weather==1.4.0", "--units", "${input:weather-units}"] },
      inputs: [
        { type: "pickString", id: "weather-units", description: "Units", options: ["metric", "imperial"], default: "metric" },
        { type: "promptString", id: "weather-key", description: "API key", password: true },
        { type: "promptString", id: "weather-cache-dir", description: "Cache (a file path)", password: false },
      ],
      notes: ["weather: --cache-dir is optional and has no default: left out"],
      pathInputs: ["weather-cache-dir"],
      fingerprint: `shown-${version}`,
    },
  });
  const b: RegistryBackend = {
    registrySearch: () => Promise.resolve({ base: "https://registry.example", servers: [server("1.4.0", deprecated)], nextCursor: null, staleMinutes: null }),
    registryVersions: () => Promise.resolve({ base: "", servers: [server("1.4.0", deprecated)], nextCursor: null, staleMinutes: null }),
    registryShow: (_name, version) => Promise.resolve(shown(version ?? "1.4.0")),
    registryAdd: vi.fn((add: RegistryAdd) => {
      added.push(add);
      return Promise.resolve({ name: add.asName ?? "weather", file: "/tmp/mcp.json", version: "1.4.0", inputs: [], notes: [] });
    }),
    pickBundle: () => Promise.resolve(null),
    pickPath: (folder: boolean) => Promise.resolve(folder ? "/picked/folder" : "/picked/cache.db"),
    installBundle: () => Promise.reject(new Error("not in this test")),
    showBundle: (path: string) => Promise.resolve(dropped(path)),
    onFilesDropped: () => Promise.resolve(() => {}),
    hostFiles: () =>
      Promise.resolve([
        { dialect: "claude-desktop", path: "/home/you/.config/Claude/claude_desktop_config.json", entries: [], error: null, writable: true, secrets: "plain_text" },
        { dialect: "vscode", path: "/home/you/.config/Code/User/mcp.json", entries: [], error: null, writable: true, secrets: "host_asks" },
        { dialect: "goose", path: "/home/you/.config/goose/config.yaml", entries: [], error: "Tap is offered for the JSON configs", writable: true, secrets: "plain_text" },
        { dialect: "codex", path: "/home/you/.codex/config.toml", entries: [], error: null, writable: true, secrets: "environment" },
        { dialect: "opencode", path: "/home/you/.config/opencode/opencode.json", entries: [], error: "Tap is offered for the JSON configs", writable: false, secrets: "plain_text" },
      ]),
  };
  return { b, added };
}

describe("the Registry room", () => {
  it("shows the entry a server becomes and adds it with what the form holds", async () => {
    const { b, added } = backend(false);
    const onAdded = vi.fn();
    render(
      <ToastProvider>
        <RegistryRoom backend={b} existingNames={["other"]} hasProject={false} onAdded={onAdded} />
      </ToastProvider>,
    );
    fireEvent.click(await screen.findByRole("button", { name: /Weather/ }));
    const entry = await screen.findByLabelText("The entry it becomes");
    expect(entry.textContent).toContain("mcp-weather==1.4.0");
    expect(screen.getByText(/optional and has no default/)).toBeTruthy();
    // A value with a default is not said to be asked later: its default is kept.
    expect(screen.getByText("Its default, metric, is kept unless you give another.")).toBeTruthy();
    // A file path is picked with the platform's dialog.
    fireEvent.click(screen.getByRole("button", { name: "Choose file…" }));
    await waitFor(() => expect((screen.getByLabelText("weather-cache-dir") as HTMLInputElement).value).toBe("/picked/cache.db"));
    fireEvent.click(screen.getByRole("button", { name: "Add server" }));
    await waitFor(() => expect(onAdded).toHaveBeenCalledWith("weather"));
    // The pick list's default was shown as chosen: it is given; the empty secret is asked later.
    expect(added[0]?.answers).toEqual([
      ["weather-units", "metric"],
      ["weather-cache-dir", "/picked/cache.db"],
    ]);
    expect(added[0]?.asName).toBe("weather");
    // What was shown goes back with it: an entry the registry now makes otherwise is refused.
    expect(added[0]?.shown).toBe("shown-1.4.0");
  });

  it("holds a deprecated version back until the person says add it anyway, and refuses a name taken", async () => {
    const { b } = backend(true);
    render(
      <ToastProvider>
        <RegistryRoom backend={b} existingNames={["weather"]} hasProject={false} onAdded={() => {}} />
      </ToastProvider>,
    );
    fireEvent.click(await screen.findByRole("button", { name: /Weather/ }));
    await screen.findByText(/Deprecated by its publisher: Use 1.4.0./);
    const add = screen.getByRole("button", { name: "Add server" });
    expect((add as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText(/A server of this name exists/)).toBeTruthy();
    fireEvent.change(screen.getByLabelText("Name in mcp.json"), { target: { value: "weather-old" } });
    expect((add as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByLabelText(/Add this version anyway/));
    expect((add as HTMLButtonElement).disabled).toBe(false);
  });

  it("adds into a host's own file, and a secret goes in as text only when the person ticks it", async () => {
    const { b, added } = backend(false);
    const onAdded = vi.fn();
    render(
      <ToastProvider>
        <RegistryRoom backend={b} existingNames={[]} hasProject={false} onAdded={onAdded} />
      </ToastProvider>,
    );
    fireEvent.click(await screen.findByRole("button", { name: /Weather/ }));
    await screen.findByLabelText("The entry it becomes");
    const into = await screen.findByRole("combobox", { name: "Into" });
    // Every host file found is offered, the YAML ones (Goose) too.
    fireEvent.keyDown(into, { key: "Enter" });
    expect(screen.getByRole("option", { name: /goose/ })).toBeTruthy();
    // Not one the entry cannot be added into (OpenCode's: pasted by hand).
    expect(screen.queryByRole("option", { name: /opencode/ })).toBeNull();
    fireEvent.keyDown(screen.getByRole("option", { name: /claude-desktop/ }), { key: "Enter" });
    fireEvent.change(screen.getByLabelText("weather-key"), { target: { value: "sk-typed" } });
    const add = screen.getByRole("button", { name: "Add server" }) as HTMLButtonElement;
    expect(add.disabled).toBe(true);
    fireEvent.click(screen.getByLabelText(/Write weather-key into .*claude_desktop_config.json as plain text/));
    expect(add.disabled).toBe(false);
    fireEvent.click(add);
    await waitFor(() => expect(added).toHaveLength(1));
    expect(added[0]?.host).toBe("/home/you/.config/Claude/claude_desktop_config.json");
    expect(added[0]?.plainTextOk).toBe(true);
    expect(onAdded).not.toHaveBeenCalled();
    // VS Code keeps its own secrets: nothing to tick.
    pick(screen.getByRole("combobox", { name: "Into" }), /vscode/);
    expect(screen.queryByLabelText(/as plain text/)).toBeNull();
    expect((screen.getByRole("button", { name: "Add server" }) as HTMLButtonElement).disabled).toBe(false);
    // Codex reads it from its environment: nothing to tick, and said so.
    pick(screen.getByRole("combobox", { name: "Into" }), /codex/);
    expect(screen.queryByLabelText(/as plain text/)).toBeNull();
    expect(screen.getByText(/codex's file names a variable, not the value/)).toBeTruthy();
    expect((screen.getByRole("button", { name: "Add server" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("opens a bundle dropped on the window ready to install, asking what it needs", async () => {
    const { b } = backend(false);
    render(
      <ToastProvider>
        <RegistryRoom backend={b} existingNames={[]} hasProject={false} onAdded={() => {}} dropped="/home/you/Downloads/demo.mcpb" />
      </ToastProvider>,
    );
    expect(await screen.findByText(/nobody vouches for who made it/)).toBeTruthy();
    expect(screen.getByRole("button", { name: "Give Token" })).toBeTruthy();
  });

  it("says a bundle changed after signing and does not install it", async () => {
    const { b } = backend(false);
    render(
      <ToastProvider>
        <RegistryRoom backend={b} existingNames={[]} hasProject={false} onAdded={() => {}} dropped="/home/you/Downloads/changed.mcpb" />
      </ToastProvider>,
    );
    const alert = await screen.findByRole("alert");
    expect(alert.textContent).toMatch(/its signature does not hold .*not those that were signed/);
    fireEvent.change(screen.getByLabelText("token"), { target: { value: "t" } });
    expect((screen.getByRole("button", { name: "Install" }) as HTMLButtonElement).disabled).toBe(true);
  });
});

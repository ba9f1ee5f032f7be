import { describe, expect, it } from "vitest";
import { emptyForm, entryToForm, formToFields, validate } from "./entryForm";

const noSecrets = () => Promise.reject(new Error("no secret expected"));

describe("the server form and mcp.json", () => {
  it("reads any client's spelling of an entry", () => {
    expect(entryToForm("w", { serverUrl: "https://x/mcp", headers: { A: "${secret:w/headers/A}" } })).toMatchObject({
      transport: "auto",
      url: "https://x/mcp",
      headers: [{ key: "A", value: "${secret:w/headers/A}", secret: true }],
    });
    expect(entryToForm("s", { type: "streamable-http", url: "https://x/mcp", enabled: false })).toMatchObject({ transport: "http", disabled: true });
    expect(entryToForm("l", { command: "npx", args: ["-y", "pkg"], env: { DEBUG: 1 } })).toMatchObject({
      transport: "stdio",
      args: ["-y", "pkg"],
      env: [{ key: "DEBUG", value: "1", secret: false }],
    });
  });

  it("writes only keys it knows, removing what the form cleared; secrets become references", async () => {
    const form = { ...emptyForm(), name: "gh", command: "gh-mcp", env: [{ key: "TOKEN", value: "t0k", secret: true }, { key: "MODE", value: "ro", secret: false }] };
    const stored: string[] = [];
    const fields = await formToFields(form, async (field, key, value) => {
      stored.push(`${field}.${key}=${value}`);
      return `\${secret:gh/${field}/${key}}`;
    });
    expect(stored).toEqual(["env.TOKEN=t0k"]);
    expect(fields).toEqual({
      type: null,
      command: "gh-mcp",
      args: null,
      env: { TOKEN: "${secret:gh/env/TOKEN}", MODE: "ro" },
      cwd: null,
      url: null,
      serverUrl: null,
      headers: null,
      description: null,
      disabled: null,
      enabled: null,
      protocolVersion: null,
    });
    // A pinned protocol era is written; automatic removes the key.
    expect((await formToFields({ ...emptyForm(), name: "p", command: "x", protocol: "2025-11-25" }, noSecrets)).protocolVersion).toBe("2025-11-25");
    expect(entryToForm("p", { command: "x", protocolVersion: "2026-07-28" }).protocol).toBe("2026-07-28");
    const remote = await formToFields({ ...emptyForm(), name: "r", transport: "sse", url: " https://h/sse " }, noSecrets);
    expect(remote).toMatchObject({ type: "sse", url: "https://h/sse", command: null, env: null });
    // An existing reference is kept as it is, not stored again.
    const kept = await formToFields({ ...emptyForm(), name: "r", transport: "http", url: "https://h", headers: [{ key: "A", value: "${secret:r/headers/A}", secret: true }] }, noSecrets);
    expect(kept.headers).toEqual({ A: "${secret:r/headers/A}" });
  });

  it("says what is wrong next to the field", () => {
    expect(validate(emptyForm(), [])).toEqual({ name: "A server needs a name.", command: "A local server needs a command to run." });
    expect(validate({ ...emptyForm(), name: "a", command: "x" }, ["a"]).name).toMatch(/already exists/);
    expect(validate({ ...emptyForm(), name: "r", transport: "http", url: "ftp://x" }, []).url).toMatch(/http/);
    expect(validate({ ...emptyForm(), name: "r", command: "x", env: [{ key: "A", value: "1", secret: false }, { key: "A", value: "2", secret: false }] }, []).env).toMatch(/twice/);
  });
});

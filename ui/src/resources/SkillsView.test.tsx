// The Skills room as a person uses it: every server's skills, searched;
// nothing read until one is opened; a verified skill's SKILL.md and files;
// a skill whose SKILL.md is not what the server listed is said so, its text
// not shown and its files not opened.
import { describe, expect, it, vi } from "vitest";
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { LoadedSkill, ResourcesBackend, SkillRow } from "../ipc/resources";
import { ToastProvider } from "../design";
import { SkillsView } from "./SkillsView";

const row = (server: string, name: string, description: string): SkillRow => ({
  server,
  name,
  stale: false,
  skill: { uri: `skill://${name}/SKILL.md`, frontmatter: { name, description }, resources: [{ uri: `skill://${name}/SKILL.md`, size: 40 }] },
});

const loaded = (name: string, problems: string[] = []): LoadedSkill => ({
  server: "demo",
  name,
  uri: `skill://${name}/SKILL.md`,
  description: "Extract text from PDFs",
  entry: {},
  text: `---\nname: ${name}\ndescription: Extract text from PDFs\n---\n# Steps\n<img src=x onerror="alert(1)">\n`,
  files: [
    { uri: `skill://${name}/SKILL.md`, path: "SKILL.md", size: 40, digest: "sha256:aa" },
    { uri: `skill://${name}/references/FORMS.md`, path: "references/FORMS.md", size: 12, digest: "sha256:bb" },
  ],
  problems,
});

function mount(backend: Partial<ResourcesBackend>, rows: SkillRow[], copy = vi.fn(async () => undefined)) {
  render(
    <QueryClientProvider client={new QueryClient()}>
      <ToastProvider>
        <SkillsView backend={backend as ResourcesBackend} rows={rows} copy={copy} />
      </ToastProvider>
    </QueryClientProvider>,
  );
  return copy;
}

describe("skills", () => {
  it("are listed without reading them, loaded on open, their files read one by one", async () => {
    const load = vi.fn(async (_s: string, name: string) => loaded(name));
    const file = vi.fn(async () => ({ uri: "skill://pdf/references/FORMS.md", path: "references/FORMS.md", size: 12, text: "Dates: ISO.\n", mime_type: "text/markdown", problem: null }));
    const copy = mount({ loadSkill: load, skillFile: file }, [row("demo", "pdf", "Extract text from PDFs"), row("other", "notes", "Release notes")]);
    fireEvent.change(screen.getByLabelText("Search skills"), { target: { value: "pdf" } });
    expect(screen.queryByText("notes")).toBeNull();
    expect(load).not.toHaveBeenCalled();
    fireEvent.click(screen.getByText("pdf"));
    await screen.findByText("verified");
    expect(load).toHaveBeenCalledWith("demo", "pdf");
    expect(await screen.findByRole("heading", { name: "Steps" })).toBeTruthy();
    // The server's markup is not made elements.
    expect(document.querySelector(".skill-body img")).toBeNull();
    expect(file).not.toHaveBeenCalled();
    fireEvent.click(screen.getByRole("button", { name: "Open references/FORMS.md" }));
    expect(await screen.findByText("Dates: ISO.")).toBeTruthy();
    expect(file).toHaveBeenCalledWith("demo", "pdf", "references/FORMS.md");
    // An opened file: its name a heading, rendered as SKILL.md is (it is
    // Markdown), and it can be closed.
    const opened = screen.getByRole("region", { name: "references/FORMS.md" });
    expect(within(opened).getByRole("heading", { name: "references/FORMS.md" })).toBeTruthy();
    expect(opened.querySelector(".skill-body p")?.textContent).toBe("Dates: ISO.");
    fireEvent.click(within(opened).getByRole("button", { name: "Close references/FORMS.md" }));
    expect(screen.queryByRole("region", { name: "references/FORMS.md" })).toBeNull();
    expect(screen.getByRole("button", { name: "Open references/FORMS.md" })).toBeTruthy();
    fireEvent.click(screen.getByRole("button", { name: "Copy as mcpwb" }));
    await waitFor(() => expect(copy).toHaveBeenCalledWith("mcpwb skill demo pdf --verify"));
  });

  it("a SKILL.md not as listed is said to be the server's fault, not shown, its files not opened", async () => {
    const file = vi.fn();
    mount(
      { loadSkill: async (_s, name) => loaded(name, ["the server's fault: SKILL.md has digest sha256:cc, its skills/list says sha256:aa"]), skillFile: file },
      [row("demo", "pdf", "Extract text from PDFs")],
    );
    fireEvent.click(screen.getByText("pdf"));
    const alert = await screen.findByRole("alert");
    expect(within(alert).getByText(/its skills\/list says sha256:aa/)).toBeTruthy();
    expect(screen.queryByRole("heading", { name: "Steps" })).toBeNull();
    expect((screen.getByRole("button", { name: "Open references/FORMS.md" }) as HTMLButtonElement).disabled).toBe(true);
    expect(file).not.toHaveBeenCalled();
  });
});

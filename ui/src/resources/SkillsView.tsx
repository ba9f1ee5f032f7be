// Skills (SEP-2640) of every server: folders of instructions a model loads
// when it needs them. The list is what each server's skills/list said;
// nothing of a skill is read until it is opened. Opening one loads it: its
// SKILL.md is read and checked against the listing (digest, size,
// frontmatter), its files listed with their sizes; a file is read (and
// checked) when it is opened. What a server sends is shown as text or as
// sanitised markdown, never run.
import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { Copy, FileText, ShieldAlert, ShieldCheck, X } from "lucide-react";
import type { ListCache, ResourcesBackend, SkillFileRead, SkillRow } from "../ipc/resources";
import { Freshness, PickList, ServerFilter } from "../components/PickList";
import { Markdown } from "../content/Markdown";
import { Badge, Button, Input, Skeleton, plural, useToast } from "../design";
import { keys } from "../queries";

type Listed = { frontmatter?: { name?: string; description?: string }; resources?: { uri?: string; size?: number }[] | string };

function listed(row: SkillRow): Listed {
  return row.skill as Listed;
}

/** SKILL.md less its frontmatter block (the card shows the fields). */
function body(text: string): string {
  const m = /^\uFEFF?---\r?\n[\s\S]*?\r?\n---[ \t]*(\r?\n|$)/.exec(text);
  return m ? text.slice(m[0].length) : text;
}

function Detail({ backend, row, copy }: { backend: ResourcesBackend; row: SkillRow; copy: (text: string) => Promise<void> }) {
  const toast = useToast();
  const [opened, setOpened] = useState<Record<string, SkillFileRead | string>>({});
  const skill = useQuery({
    queryKey: keys.skill(row.server, row.name),
    queryFn: () => backend.loadSkill(row.server, row.name),
    retry: false,
  });
  const close = (path: string) => setOpened((o) => Object.fromEntries(Object.entries(o).filter(([p]) => p !== path)));
  const open = async (path: string) => {
    try {
      const file = await backend.skillFile(row.server, row.name, path);
      setOpened((o) => ({ ...o, [path]: file }));
    } catch (e) {
      setOpened((o) => ({ ...o, [path]: e instanceof Error ? e.message : String(e) }));
    }
  };
  const command = `mcpwb skill ${row.server} ${row.name} --verify`;
  if (skill.isPending) return <Skeleton label={`Loading ${row.name}`} />;
  if (skill.isError) {
    return (
      <div className="error-banner" role="alert">
        <p className="error-message">{skill.error instanceof Error ? skill.error.message : String(skill.error)}</p>
      </div>
    );
  }
  const s = skill.data;
  const rejected = s.problems.length > 0;
  return (
    <div className="skill-detail">
      <h2>
        {s.name} <code className="qualified">{row.server}</code>{" "}
        {rejected ? (
          <Badge tone="danger">
            <ShieldAlert aria-hidden size={12} /> not as listed
          </Badge>
        ) : (
          <Badge tone="ok">
            <ShieldCheck aria-hidden size={12} /> verified
          </Badge>
        )}
      </h2>
      <p className="tool-description">{s.description}</p>
      <div className="run-bar">
        <Button size="sm" icon={Copy} onClick={() => void copy(command).then(() => toast("Copied", { description: command }))}>
          Copy as mcpwb
        </Button>
      </div>
      {rejected && (
        <div className="error-banner" role="alert">
          <p className="error-message">The server sent a SKILL.md that is not what it listed; it is not shown or used.</p>
          <ul>
            {s.problems.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      )}
      <h3>Files</h3>
      <ul className="skill-files" aria-label="Files">
        {s.files.map((f) => {
          const got = opened[f.path];
          const isSkillMd = f.uri === s.uri;
          return (
            <li key={f.uri}>
              <div className="skill-file">
                <FileText aria-hidden size={14} />
                <code>{f.path}</code>
                <span className="muted">{f.size == null ? "size not listed" : `${f.size.toLocaleString()} B`}</span>
                {isSkillMd ? (
                  rejected ? <Badge tone="danger">not as listed</Badge> : <Badge tone="ok">as listed</Badge>
                ) : typeof got === "object" ? (
                  got.problem ? <Badge tone="danger">not as listed</Badge> : <Badge tone="ok">as listed</Badge>
                ) : (
                  <Button size="sm" variant="ghost" disabled={rejected} onClick={() => void open(f.path)} aria-label={`Open ${f.path}`}>
                    Open
                  </Button>
                )}
              </div>
              {got !== undefined && (
                <section className="skill-file-open" aria-label={f.path}>
                  <header className="skill-file-head">
                    <h4>{f.path}</h4>
                    <Button size="sm" variant="ghost" icon={X} onClick={() => close(f.path)} aria-label={`Close ${f.path}`}>
                      Close
                    </Button>
                  </header>
                  {typeof got === "string" && <p className="error-message">{got}</p>}
                  {typeof got === "object" && got.problem && <p className="error-message">{got.problem}</p>}
                  {typeof got === "object" &&
                    !got.problem &&
                    (got.text == null ? (
                      <p className="muted">{got.size} bytes, not text</p>
                    ) : /\.(md|markdown)$/i.test(f.path) ? (
                      <div className="skill-body">
                        <Markdown text={body(got.text)} />
                      </div>
                    ) : (
                      <pre className="skill-file-text">{got.text}</pre>
                    ))}
                </section>
              )}
            </li>
          );
        })}
      </ul>
      {!rejected && (
        <>
          <h3>SKILL.md</h3>
          <div className="skill-body">
            <Markdown text={body(s.text)} />
          </div>
        </>
      )}
    </div>
  );
}

export function SkillsView({ backend, rows, copy, hints }: { backend: ResourcesBackend; rows: SkillRow[]; copy: (text: string) => Promise<void>; hints?: ListCache[] }) {
  const [openKey, setOpenKey] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [server, setServer] = useState("");
  const keyOf = (row: SkillRow) => `${row.server}/${row.name}`;
  const index = rows.findIndex((r) => keyOf(r) === openKey);
  const current = index < 0 ? null : rows[index];
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  const items = rows
    .map((row, i) => ({ row, i }))
    .filter(({ row }) => {
      if (server && row.server !== server) return false;
      const hay = `${row.server} ${row.name} ${listed(row).frontmatter?.description ?? ""}`.toLowerCase();
      return words.every((w) => hay.includes(w));
    })
    .map(({ row, i }) => {
      const files = listed(row).resources;
      const count = Array.isArray(files) ? plural(files.length, "file") : "dynamic files";
      return { key: keyOf(row), index: i, title: row.name, server: row.server, code: count };
    });
  return (
    <PickList
      id="skills"
      label="Skills"
      items={items}
      selected={index < 0 ? null : index}
      onSelect={(i) => setOpenKey(rows[i] ? keyOf(rows[i]) : null)}
      top={
        <>
          <Input type="search" aria-label="Search skills" placeholder={`Search ${plural(rows.length, "skill")}`} value={query} onChange={(e) => setQuery(e.target.value)} />
          <ServerFilter servers={rows.map((r) => r.server)} value={server} onChange={setServer} />
          <Freshness hints={hints} lists={["skills"]} server={server} />
          {rows.length === 0 && (
            <p className="muted empty-hint">
              No skills yet. A skill is a SKILL.md and its files that a server offers for a model to load: add a server that offers some (the example
              server does) and its skills are listed here once it is ready.
            </p>
          )}
          {rows.length > 0 && items.length === 0 && <p className="muted empty-hint">No skill matches “{query}”.</p>}
        </>
      }
      detail={current ? <Detail key={openKey} backend={backend} row={current} copy={copy} /> : null}
      empty={{ title: "Pick a skill", text: "It is loaded when you open it: its SKILL.md checked against what the server listed, its files one by one." }}
    />
  );
}

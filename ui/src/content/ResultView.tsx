// A tool result as a person reads it: every content block, structured
// content, schema violations, and an error result marked as such. All server
// text is rendered as text (never HTML); media only from data: URLs.
import { useState } from "react";
import { BookOpen, CheckCircle2, Download, Link2 } from "lucide-react";
import type { ResourcesBackend, WindowBackend } from "../ipc";
import { Badge, Button, Disclosure, took, useToast } from "../design";
import { Markdown, looksLikeMarkdown } from "./Markdown";

type Block = { [key: string]: unknown };

/** Above this a text block shows a preview until asked for the rest. */
export const PREVIEW_CHARS = 20_000;

function LongText({ text, className }: { text: string; className?: string }) {
  const [full, setFull] = useState(false);
  if (text.length <= PREVIEW_CHARS || full) return <pre className={className}>{text}</pre>;
  return (
    <div>
      <pre className={className}>{text.slice(0, PREVIEW_CHARS)}</pre>
      <Button variant="secondary" onClick={() => setFull(true)}>
        Show all {text.length.toLocaleString()} characters
      </Button>
    </div>
  );
}

function pretty(text: string): string | null {
  const t = text.trim();
  if (!(t.startsWith("{") || t.startsWith("["))) return null;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return null;
  }
}

const safeMime = (m: unknown, prefix: string) =>
  typeof m === "string" && m.startsWith(prefix) && /^[\w.+-]+\/[\w.+-]+$/.test(m) ? m : null;

function TextBlock({ text }: { text: string }) {
  const json = text.length <= PREVIEW_CHARS ? pretty(text) : null;
  const markdownish = !json && text.length <= PREVIEW_CHARS && looksLikeMarkdown(text);
  const [asMarkdown, setAsMarkdown] = useState(markdownish);
  return (
    <div className="block block-text" data-block="text">
      {markdownish && (
        <button type="button" className="link-button" onClick={() => setAsMarkdown(!asMarkdown)}>
          {asMarkdown ? "Show as text" : "Show as Markdown"}
        </button>
      )}
      {json ? <LongText className="json" text={json} /> : asMarkdown ? <Markdown text={text} /> : <LongText text={text} />}
    </div>
  );
}

/** Bytes of a base64 string (without decoding it). */
const b64Size = (data: string) => Math.floor((data.replace(/=+$/, "").length * 3) / 4);

function decode(b64: string, max: number): Uint8Array {
  try {
    const bin = atob(b64.slice(0, Math.ceil((max * 4) / 3) + 4).replace(/[^A-Za-z0-9+/=]/g, ""));
    return Uint8Array.from(bin.slice(0, max), (c) => c.charCodeAt(0));
  } catch {
    return new Uint8Array();
  }
}

/** The first bytes as a hex dump, and as text when they read as UTF-8. */
function BinaryPreview({ data, mime }: { data: string; mime: string }) {
  const bytes = decode(data, 512);
  let text: string | null = null;
  try {
    const t = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    if (mime.startsWith("text/") || /^[\t\n\r\x20-\x7e\u00a0-\uffff]*$/.test(t)) text = t;
  } catch {
    text = null;
  }
  const hex = Array.from(bytes.slice(0, 256), (b, i) => `${i % 16 === 0 ? `${i.toString(16).padStart(6, "0")}  ` : ""}${b.toString(16).padStart(2, "0")}${i % 16 === 15 ? "\n" : " "}`).join("");
  return text !== null ? <pre className="binary-preview">{text}</pre> : <pre className="binary-preview hex">{hex}</pre>;
}

/** A binary resource: its type and size, a preview, and Save as…. */
/** What a result reaches of the Rust side: resources a link names, and saving a server's bytes. */
export type ResultBackend = ResourcesBackend & WindowBackend;

function Binary({ backend, uri, mime, data }: { backend?: ResultBackend; uri: string; mime: string; data: string }) {
  const toast = useToast();
  const name = uri.split("/").filter(Boolean).pop() || "resource.bin";
  return (
    <div className="binary">
      <p className="muted">
        {mime}, {b64Size(data).toLocaleString()} bytes
      </p>
      <BinaryPreview data={data} mime={mime} />
      {backend && (
        <Button
          size="sm"
          icon={Download}
          onClick={() =>
            backend.saveBytes(name, data).then(
              (path) => path && toast("Saved", { description: path }),
              (e: unknown) => toast("Could not save", { tone: "danger", description: e instanceof Error ? e.message : String(e) }),
            )
          }
        >
          Save as…
        </Button>
      )}
    </div>
  );
}

/** What the server says about a block: who it is for, how important, when it changed. */
function BlockAnnotations({ annotations }: { annotations: unknown }) {
  const a = (annotations ?? null) as Block | null;
  if (!a) return null;
  const parts = [
    Array.isArray(a.audience) ? `for ${a.audience.join(" and ")}` : null,
    typeof a.priority === "number" ? `priority ${Number(a.priority.toFixed(2))}` : null,
    typeof a.lastModified === "string" ? `modified ${a.lastModified}` : null,
  ].filter(Boolean);
  return parts.length ? <p className="block-annotations">{parts.join(" · ")}</p> : null;
}

/** What a resource read returned, each content as a person reads it: text
 * (Markdown and JSON shown as such, long text cut until asked), images,
 * other bytes as a preview with Save as…. `headed` names each content's URI
 * and type above it (a read of its own; a link followed in place has them). */
export function ResourceContents({ backend, contents, headed = false }: { backend?: ResultBackend; contents: Block[]; headed?: boolean }) {
  return (
    <div className={headed ? "resource-contents" : "linked-contents"}>
      {contents.map((c, i) => {
        const uri = String(c.uri ?? "");
        const mime = String(c.mimeType ?? "");
        const image = safeMime(c.mimeType, "image/");
        // Bytes say their type and size themselves.
        const bytes = typeof c.blob === "string" && !image;
        const head = headed && (
          <p className="muted content-head">
            {uri} {mime && !bytes && `· ${mime}`}
          </p>
        );
        let body;
        if (typeof c.text === "string") {
          const json = mime.includes("json") && c.text.length <= PREVIEW_CHARS ? pretty(c.text) : null;
          body = mime.includes("markdown") && c.text.length <= PREVIEW_CHARS ? <Markdown text={c.text} /> : <LongText className={json ? "json" : undefined} text={json ?? c.text} />;
        } else if (typeof c.blob !== "string") {
          body = <p className="muted">no content</p>;
        } else if (image) {
          body = <img alt={uri || "image"} src={`data:${image};base64,${c.blob}`} />;
        } else {
          body = <Binary backend={backend} uri={uri} mime={mime || "application/octet-stream"} data={c.blob} />;
        }
        return (
          <div key={i} className={headed ? "resource-content result" : "resource-content"}>
            {head}
            {body}
          </div>
        );
      })}
    </div>
  );
}

function ResourceLink({ block, backend, server }: { block: Block; backend?: ResultBackend; server?: string }) {
  const [read, setRead] = useState<{ contents?: Block[]; error?: string } | null>(null);
  const uri = String(block.uri ?? "");
  return (
    <div className="block" data-block="resource_link">
      <div className="block-head">
        <Badge icon={Link2}>link</Badge>
        <code className="truncate" title={uri}>
          {uri}
        </code>
        {typeof block.title === "string" ? <span>{block.title}</span> : typeof block.name === "string" && <span>{block.name}</span>}
        {backend && server && (
          <Button
            size="sm"
            variant="ghost"
            icon={BookOpen}
            onClick={() =>
              backend.readResource(server, uri).then(
                (r) => setRead({ contents: ((r as Block).contents ?? []) as Block[] }),
                (e: unknown) => setRead({ error: e instanceof Error ? e.message : String(e) }),
              )
            }
          >
            Read
          </Button>
        )}
      </div>
      {typeof block.description === "string" && <p className="muted">{block.description}</p>}
      {read?.error && <p className="field-error">{read.error}</p>}
      {read?.contents && <ResourceContents backend={backend} contents={read.contents} />}
    </div>
  );
}

/** One content block (of a tool's result, or a prompt's message) with what
 * the server says of it. */
export function BlockView({ block, backend, server }: { block: Block; backend?: ResultBackend; server?: string }) {
  return (
    <>
      <BlockBody block={block} backend={backend} server={server} />
      <BlockAnnotations annotations={block.annotations} />
    </>
  );
}

function BlockBody({ block, backend, server }: { block: Block; backend?: ResultBackend; server?: string }) {
  const type = String(block.type ?? "");
  switch (type) {
    case "text":
      return <TextBlock text={String(block.text ?? "")} />;
    case "image": {
      const mime = safeMime(block.mimeType, "image/");
      return (
        <div className="block" data-block="image">
          {mime ? <img alt="image from the tool" src={`data:${mime};base64,${String(block.data ?? "")}`} /> : <p>image with an unsupported type</p>}
        </div>
      );
    }
    case "audio": {
      const mime = safeMime(block.mimeType, "audio/");
      return (
        <div className="block" data-block="audio">
          {mime ? <audio controls src={`data:${mime};base64,${String(block.data ?? "")}`} /> : <p>audio with an unsupported type</p>}
        </div>
      );
    }
    case "resource_link":
      return <ResourceLink block={block} backend={backend} server={server} />;
    case "resource": {
      const r = (block.resource ?? {}) as Block;
      return (
        <div className="block" data-block="resource">
          <div className="block-head">
            <Badge>resource</Badge>
            <code className="truncate" title={String(r.uri ?? "")}>
              {String(r.uri ?? "")}
            </code>
          </div>
          <ResourceContents backend={backend} contents={[r]} />
        </div>
      );
    }
    default:
      return (
        <div className="block" data-block="unknown">
          <LongText className="json" text={JSON.stringify(block, null, 2)} />
        </div>
      );
  }
}

/** JSON with long strings (base64 and the like) cut, unless asked for whole. */
function StructuredContent({ value }: { value: unknown }) {
  const [whole, setWhole] = useState(false);
  let cut = 0;
  const text = JSON.stringify(
    value,
    (_, v: unknown) => {
      if (!whole && typeof v === "string" && v.length > 400) {
        cut += 1;
        return `${v.slice(0, 80)}… (${(v.length - 80).toLocaleString()} more characters)`;
      }
      return v;
    },
    2,
  );
  return (
    <>
      <LongText className="json" text={text} />
      {(cut > 0 || whole) && (
        <button type="button" className="link-button" onClick={() => setWhole(!whole)}>
          {whole ? "Cut long values" : `Show ${cut} long value${cut === 1 ? "" : "s"} whole`}
        </button>
      )}
    </>
  );
}

export function ResultView({
  result,
  durationMs,
  violations,
  backend,
  server,
  checked = false,
  notes = [],
}: {
  result: Block;
  durationMs: number | null;
  violations: string[];
  /** What happened to the call on the way (a wait for its server to restart, a send again). */
  notes?: string[];
  /** With these, resource links can be read in place and binaries saved. */
  backend?: ResultBackend;
  server?: string;
  /** The tool has an output schema the structured content was checked against. */
  checked?: boolean;
}) {
  const isError = result.isError === true;
  const content = Array.isArray(result.content) ? (result.content as Block[]) : [];
  return (
    <section className={isError ? "result result-error" : "result"} aria-label="Result">
      <p className="result-status" role="status">
        {isError ? "The tool returned an error" : "Done"}
        {durationMs !== null && ` in ${took(durationMs)}`}
      </p>
      {notes.length > 0 && (
        <ul className="result-notes" aria-label="On the way">
          {notes.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      )}
      {content.map((b, i) => (
        <BlockView key={i} block={b} backend={backend} server={server} />
      ))}
      {result.structuredContent !== undefined && (
        <Disclosure title="structuredContent">
          <StructuredContent value={result.structuredContent} />
        </Disclosure>
      )}
      {checked && result.structuredContent !== undefined && violations.length === 0 && (
        <p className="schema-ok" role="status">
          <CheckCircle2 aria-hidden size={14} /> Matches the tool&apos;s output schema
        </p>
      )}
      {violations.length > 0 && (
        <div className="violations" role="alert">
          <p>structuredContent does not match the tool&apos;s outputSchema:</p>
          <ul>
            {violations.map((v) => (
              <li key={v}>{v}</li>
            ))}
          </ul>
        </div>
      )}
    </section>
  );
}

// A tool result as a person reads it: every content block, structured
// content, schema violations, and an error result marked as such. All server
// text is rendered as text (never HTML); media only from data: URLs.
import { useState } from "react";
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
      <button type="button" onClick={() => setFull(true)}>
        Show all {text.length.toLocaleString()} characters
      </button>
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

function BlockView({ block }: { block: Block }) {
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
      return (
        <div className="block" data-block="resource_link">
          <span className="badge">link</span> <code>{String(block.uri ?? "")}</code>{" "}
          {typeof block.name === "string" && <span>{block.name}</span>}
          {typeof block.description === "string" && <p className="muted">{block.description}</p>}
        </div>
      );
    case "resource": {
      const r = (block.resource ?? {}) as Block;
      return (
        <div className="block" data-block="resource">
          <span className="badge">resource</span> <code>{String(r.uri ?? "")}</code>
          {typeof r.text === "string" ? (
            <LongText text={r.text} />
          ) : (
            <p className="muted">{typeof r.blob === "string" ? `binary, ${Math.floor((r.blob.length * 3) / 4).toLocaleString()} bytes` : "no content"}</p>
          )}
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

export function ResultView({ result, durationMs, violations }: { result: Block; durationMs: number | null; violations: string[] }) {
  const isError = result.isError === true;
  const content = Array.isArray(result.content) ? (result.content as Block[]) : [];
  return (
    <section className={isError ? "result result-error" : "result"} aria-label="Result">
      <p className="result-status" role="status">
        {isError ? "The tool returned an error" : "Done"}
        {durationMs !== null && ` in ${durationMs.toFixed(0)} ms`}
      </p>
      {content.map((b, i) => (
        <BlockView key={i} block={b} />
      ))}
      {result.structuredContent !== undefined && (
        <details open>
          <summary>structuredContent</summary>
          <LongText className="json" text={JSON.stringify(result.structuredContent, null, 2)} />
        </details>
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

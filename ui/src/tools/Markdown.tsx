// Markdown is rendered by a parser loaded on first use (it is not needed to
// paint the window): until it has loaded, the text shows as it is.
import { Suspense, lazy } from "react";

const MarkdownView = lazy(() => import("./MarkdownView"));

export function Markdown({ text }: { text: string }) {
  return (
    <Suspense
      fallback={
        <div className="markdown">
          <p className="pre-wrap">{text}</p>
        </div>
      }
    >
      <MarkdownView text={text} />
    </Suspense>
  );
}

/** Whether a text is probably meant as Markdown. */
export function looksLikeMarkdown(text: string): boolean {
  return /(^|\n)(#{1,6} |[-*] |\d+\. |```|> )|\*\*[^*]+\*\*|\[[^\]]+\]\([^)]+\)/.test(text);
}

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
  // Each pattern here is linear in the text: a server's text full of "["
  // must not stall the window (a link pattern with two open-ended runs was
  // quadratic). A link: a "](" with a "[" before it and a ")" after it.
  if (/(^|\n)(#{1,6} |[-*] |\d+\. |```|> )|\*\*[^*]+\*\*/.test(text)) return true;
  const link = text.indexOf("](", text.indexOf("[") + 1);
  return text.indexOf("[") !== -1 && link !== -1 && text.lastIndexOf(")") > link + 2;
}

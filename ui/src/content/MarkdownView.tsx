// Markdown from a server, rendered safely: raw HTML is dropped (never
// parsed), images are not fetched, and links are shown, not followed (a
// click must not navigate the app's window).
import ReactMarkdown from "react-markdown";

export default function MarkdownView({ text }: { text: string }) {
  return (
    <div className="markdown">
      <ReactMarkdown
        skipHtml
        components={{
          a: ({ children, href }) => (
            <span className="md-link" title={href ?? ""}>
              {children} <code>{href}</code>
            </span>
          ),
          img: ({ alt, src }) => (
            <span className="md-image">
              [image: {alt ?? ""} <code>{typeof src === "string" ? src : ""}</code>]
            </span>
          ),
        }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
}

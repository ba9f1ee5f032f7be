import { BackendError } from "../ipc";
import { Button } from "../design";

const HINTS: Record<string, string> = {
  config_syntax: "Fix the file at the line and column shown; nothing was changed on disk.",
  config_invalid: "The file is JSON but not an mcp.json: it needs an \"mcpServers\" object.",
  config_unreadable: "Check the file's permissions.",
};

export function ErrorBanner({ error, onRetry }: { error: Error; onRetry?: () => void }) {
  const code = error instanceof BackendError ? error.code : "internal";
  return (
    <div role="alert" className="error-banner" data-code={code}>
      <p className="error-message">{error.message}</p>
      {HINTS[code] && <p className="error-hint">{HINTS[code]}</p>}
      {onRetry && (
        <Button variant="secondary" onClick={onRetry}>
          Try again
        </Button>
      )}
    </div>
  );
}

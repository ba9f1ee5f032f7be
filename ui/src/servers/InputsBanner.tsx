// `${input:id}` values servers need: asked once here, kept in the OS
// keychain, and the servers that use them restart.
import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { NeededInput } from "../ipc";
import { keys } from "../queries";
import { Button, Input } from "../design";
import type { ServersBackend } from "../ipc";

function Ask({ backend, need, onDone }: { backend: ServersBackend; need: NeededInput; onDone: () => void }) {
  const [value, setValue] = useState("");
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      className="needed-input"
      onSubmit={(e) => {
        e.preventDefault();
        backend.provideInput(need.id, value, need.servers).then(onDone, (err: unknown) => setError(err instanceof Error ? err.message : String(err)));
      }}
    >
      <label className="field">
        <span className="field-label">
          {need.description ?? need.id} <span className="muted">(for {need.servers.join(", ")})</span>
        </span>
        <Input aria-label={`Input ${need.id}`} type={need.password ? "password" : "text"} value={value} onChange={(e) => setValue(e.target.value)} />
      </label>
      <Button variant="secondary" type="submit" disabled={value === ""}>
        Remember
      </Button>
      {error && <p className="field-error">{error}</p>}
    </form>
  );
}

export function InputsBanner({ backend }: { backend: ServersBackend }) {
  const client = useQueryClient();
  const needed = useQuery({ queryKey: keys.inputs(), queryFn: () => backend.neededInputs() });
  if (!needed.data?.length) return null;
  return (
    <div className="notice" role="region" aria-label="Inputs needed">
      <p>Some servers need a value before they can start. It is kept in the OS keychain.</p>
      {needed.data.map((n) => (
        <Ask key={n.id} backend={backend} need={n} onDone={() => void client.invalidateQueries({ queryKey: keys.inputs() })} />
      ))}
    </div>
  );
}

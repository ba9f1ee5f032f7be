// A value that is a path: typed, or picked with the platform's dialog
// (a file, or a folder).
import { FolderOpen } from "lucide-react";
import { Button, Input } from "../design";
import type { RegistryBackend } from "../ipc";

export function PathInput({
  backend,
  folder,
  label,
  value,
  onChange,
  ...rest
}: {
  backend: Pick<RegistryBackend, "pickPath">;
  folder: boolean;
  label: string;
  value: string;
  onChange: (value: string) => void;
  id?: string;
  "aria-describedby"?: string;
}) {
  return (
    <div className="path-input">
      <Input {...rest} aria-label={label} autoComplete="off" spellCheck={false} value={value} onChange={(e) => onChange(e.target.value)} />
      <Button
        size="sm"
        variant="secondary"
        icon={FolderOpen}
        onClick={() => {
          backend.pickPath(folder).then((p) => p && onChange(p), () => undefined);
        }}
      >
        {folder ? "Choose folder…" : "Choose file…"}
      </Button>
    </div>
  );
}

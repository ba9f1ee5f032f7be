// The sidebar's doctor badge opens a server's Doctor on what it counted: a
// request the server's panel takes when it mounts (or, mounted, hears).

export const OPEN_DOCTOR = "mcpwb:open-doctor";

/** Ask `name`'s panel to open its Doctor. */
export function openDoctor(name: string) {
  try {
    sessionStorage.setItem(OPEN_DOCTOR, name);
  } catch {
    // Storage off: the event still says it.
  }
  window.dispatchEvent(new CustomEvent(OPEN_DOCTOR, { detail: name }));
}

/** Whether `name`'s Doctor was asked to open (the request is taken). */
export function takeDoctorRequest(name: string): boolean {
  try {
    if (sessionStorage.getItem(OPEN_DOCTOR) !== name) return false;
    sessionStorage.removeItem(OPEN_DOCTOR);
    return true;
  } catch {
    return false;
  }
}

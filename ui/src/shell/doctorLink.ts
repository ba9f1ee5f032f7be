// The sidebar's doctor badge opens a server's Doctor on what it counted:
// one of the places a room opens on request (`places.ts`).
import { openPlace, takePlace } from "./places";

/** Ask `name`'s panel to open its Doctor. */
export function openDoctor(name: string) {
  openPlace("doctor", name);
}

/** Whether `name`'s Doctor was asked to open (the request is taken). */
export function takeDoctorRequest(name: string): boolean {
  return takePlace("doctor", name);
}

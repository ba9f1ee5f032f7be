// What a suite's case made of its call, kept for History while the window
// is open: the call itself may be "ok" while its case failed (an assertion
// on its result), and History says so beside it.
import type { CaseResult } from "../backendHistory";

export type KeptOutcome = { suite: string; case: string; outcome: CaseResult["outcome"]; failures: string[] };

const key = (historyId: number) => `mcpwb.case.${historyId}`;

/** Keep what `result` (of `suite`) made of its call. */
export function keepCaseOutcome(suite: string, result: CaseResult) {
  if (result.history_id == null) return;
  const kept: KeptOutcome = {
    suite,
    case: result.name,
    outcome: result.outcome,
    failures: result.failures.map((f) => `${f.assertion}: ${f.message}`),
  };
  try {
    sessionStorage.setItem(key(result.history_id), JSON.stringify(kept));
  } catch {
    // Storage off: History shows the call alone.
  }
}

/** What a suite's case made of the call `historyId`, if one ran it here. */
export function caseOutcomeOf(historyId: number): KeptOutcome | null {
  try {
    const text = sessionStorage.getItem(key(historyId));
    return text ? (JSON.parse(text) as KeptOutcome) : null;
  } catch {
    return null;
  }
}

// Words with numbers: "1 case", "2 cases" — never "1 cases".

/** `n` and the noun for it: `plural(1, "case")` is "1 case", `plural(3, "case")` "3 cases". */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n.toLocaleString()} ${n === 1 ? one : many}`;
}

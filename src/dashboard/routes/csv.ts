/** One CSV line (RFC 4180), with cells that spreadsheets would run as formulas neutralised. */
export function csvLine(cells: readonly unknown[]): string {
  return (
    cells
      .map((c) => {
        let s = c === null || c === undefined ? '' : String(c);
        if (/^[=+\-@\t\r]/.test(s) && !/^-?\d/.test(s)) s = `'${s}`;
        return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
      })
      .join(',') + '\r\n'
  );
}

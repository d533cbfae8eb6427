/**
 * A table as data: a sentence before it, a header, rows of cells and notes after it. The
 * Markdown draws it with pipes and `rvs` text in padded columns, so both show the same rows.
 */
export interface TableBlock {
  intro: string;
  header: readonly string[];
  rows: readonly (readonly string[])[];
  notes: readonly string[];
}

/** Markdown: the intro, the table (its first column escaped: it names an endpoint) and each note quoted. */
export function markdownTable(table: TableBlock, escape: (text: string) => string): string[] {
  return [
    table.intro,
    '',
    `| ${table.header.join(' | ')} |`,
    `|${' --- |'.repeat(table.header.length)}`,
    ...table.rows.map((row) => `| ${[escape(row[0]!), ...row.slice(1)].join(' | ')} |`),
    ...table.notes.flatMap((note) => ['', `> ${escape(note)}`]),
  ];
}

/** Terminal text: the intro, the header and rows in columns padded to their widest cell, each note indented. */
export function textTable(table: TableBlock): string[] {
  const cells = [table.header, ...table.rows];
  const widths = table.header.map((_, i) => Math.max(...cells.map((row) => row[i]!.length)));
  return [table.intro, ...cells.map((row) => `  ${row.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd()}`), ...table.notes.map((n) => `  ${n}`)];
}

/**
 * Slack's rules for a data_table block (Block Kit reference, data table block): a caption; a
 * header row (no rich_text) and 1 to 100 rows, all as long, of 1 to 20 cells; raw_text with text,
 * raw_number with a numeric value; at most 10,000 characters across all cells; page_size 1 to 100.
 */

import type { Violation } from './slack-validator';

export const DATA_TABLE_RULES = { minRows: 2, maxRows: 101, minColumns: 1, maxColumns: 20, cellChars: 10_000, pageSize: 100 } as const;

export function dataTableProblems(path: string, block: Record<string, unknown>): Violation[] {
  const problems: Violation[] = [];
  const add = (at: string, problem: string) => problems.push({ path: at, problem });
  if (typeof block.caption !== 'string' || !block.caption.trim()) add(`${path}.caption`, 'no caption');
  if (block.page_size !== undefined) {
    const size = block.page_size;
    if (!Number.isInteger(size) || (size as number) < 1 || (size as number) > DATA_TABLE_RULES.pageSize)
      add(`${path}.page_size`, `page_size ${String(size)} (1 to ${DATA_TABLE_RULES.pageSize})`);
  }
  const rows = Array.isArray(block.rows) ? (block.rows as unknown[]) : [];
  if (rows.length < DATA_TABLE_RULES.minRows || rows.length > DATA_TABLE_RULES.maxRows)
    add(`${path}.rows`, `${rows.length} rows with the header (${DATA_TABLE_RULES.minRows} to ${DATA_TABLE_RULES.maxRows})`);
  const width = Array.isArray(rows[0]) ? (rows[0] as unknown[]).length : 0;
  if (width < DATA_TABLE_RULES.minColumns || width > DATA_TABLE_RULES.maxColumns)
    add(`${path}.rows[0]`, `${width} columns (${DATA_TABLE_RULES.minColumns} to ${DATA_TABLE_RULES.maxColumns})`);
  const index = block.row_header_column_index;
  if (index !== undefined && (!Number.isInteger(index) || (index as number) < 0 || (index as number) >= width))
    add(`${path}.row_header_column_index`, `column ${String(index)} of ${width}`);
  let chars = 0;
  for (const [r, row] of rows.entries()) {
    if (!Array.isArray(row) || row.length !== width) {
      add(`${path}.rows[${r}]`, `${Array.isArray(row) ? row.length : 'no'} cells (every row has ${width})`);
      continue;
    }
    for (const [c, cell] of (row as Array<Record<string, unknown>>).entries()) {
      const at = `${path}.rows[${r}][${c}]`;
      if (cell.type === 'raw_text') {
        if (typeof cell.text !== 'string' || cell.text.length === 0) add(`${at}.text`, 'empty raw_text');
        chars += String(cell.text ?? '').length;
      } else if (cell.type === 'raw_number') {
        if (typeof cell.value !== 'number' || !Number.isFinite(cell.value)) add(`${at}.value`, 'raw_number without a number');
        if (cell.text !== undefined && (typeof cell.text !== 'string' || cell.text.length === 0)) add(`${at}.text`, 'empty text');
        chars += String(cell.text ?? cell.value ?? '').length;
      } else if (cell.type === 'rich_text') {
        if (r === 0) add(at, 'rich_text in the header row');
        chars += JSON.stringify(cell.elements ?? []).length;
      } else add(at, `a cell of type ${String(cell.type)}`);
    }
  }
  if (chars > DATA_TABLE_RULES.cellChars)
    add(`${path}.rows`, `${chars} characters across the cells (at most ${DATA_TABLE_RULES.cellChars})`);
  return problems;
}

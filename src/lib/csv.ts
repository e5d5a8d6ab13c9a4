/**
 * A small RFC 4180 CSV reader that keeps line numbers: quoted fields with
 * commas, doubled quotes and line breaks, CRLF or LF, a UTF-8 BOM. Rows come
 * out as string arrays with the 1-based line number where each row starts.
 */
export interface CsvRow {
  line: number;
  fields: string[];
}

export function parseCsv(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let field = '';
  let fields: string[] = [];
  let rowLine = 1;
  let inQuotes = false;
  let sawAny = false;
  const endRow = () => {
    fields.push(field);
    if (!(fields.length === 1 && fields[0] === '' && !sawAny)) rows.push({ line: rowLine, fields });
    fields = [];
    field = '';
    sawAny = false;
  };
  for (; i < text.length; i++) {
    const c = text[i]!;
    if (inQuotes) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else inQuotes = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
      continue;
    }
    if (c === '"' && field === '') {
      inQuotes = true;
      sawAny = true;
    } else if (c === ',') {
      fields.push(field);
      field = '';
      sawAny = true;
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else {
      field += c;
      sawAny = true;
    }
  }
  if (inQuotes) throw new SyntaxError(`line ${rowLine}: unterminated quoted field`);
  if (field !== '' || fields.length > 0 || sawAny) endRow();
  return rows;
}

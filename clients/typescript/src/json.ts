// JSON with exact 64-bit integers. rankline's scores are signed 64-bit integers; a JavaScript
// number is exact only up to 2^53 - 1, and JSON.parse rounds a larger one silently. Here an
// integer beyond that range is read as a bigint, and a bigint is written as a JSON integer.

const MARK = "\u0000rankline-int64:";
const WRITTEN = /"\\u0000rankline-int64:(-?\d+)"/g;
const LONG_DIGITS = /\d{16}/;

function isNumberChar(code: number): boolean {
  // digits, - + . e E
  return (
    (code >= 48 && code <= 57) ||
    code === 45 ||
    code === 43 ||
    code === 46 ||
    code === 101 ||
    code === 69
  );
}

/** Parse JSON text; an integer beyond Number.MAX_SAFE_INTEGER (either sign) becomes a bigint. */
export function parseJson(text: string): unknown {
  if (!LONG_DIGITS.test(text)) return JSON.parse(text);
  let rewritten = "";
  let copied = 0;
  for (let at = 0; at < text.length;) {
    const code = text.charCodeAt(at);
    if (code === 34) {
      // a string: skip to its closing quote, over escapes
      for (at++; at < text.length; at++) {
        const inner = text.charCodeAt(at);
        if (inner === 92) at++;
        else if (inner === 34) break;
      }
      at++;
    } else if (code === 45 || (code >= 48 && code <= 57)) {
      const start = at;
      while (at < text.length && isNumberChar(text.charCodeAt(at))) at++;
      const literal = text.slice(start, at);
      if (/^-?\d+$/.test(literal) && !Number.isSafeInteger(Number(literal))) {
        rewritten += text.slice(copied, start) + JSON.stringify(MARK + literal);
        copied = at;
      }
    } else {
      at++;
    }
  }
  if (copied === 0) return JSON.parse(text);
  rewritten += text.slice(copied);
  return JSON.parse(rewritten, (_key, value: unknown) =>
    typeof value === "string" && value.startsWith(MARK) ? BigInt(value.slice(MARK.length)) : value,
  );
}

/** JSON text of `value`; a bigint is written as an integer, exactly. */
export function stringifyJson(value: unknown): string {
  let exact = false;
  const text = JSON.stringify(value, (_key, item: unknown) => {
    if (typeof item !== "bigint") return item;
    exact = true;
    return MARK + item.toString();
  });
  return exact ? text.replace(WRITTEN, "$1") : text;
}

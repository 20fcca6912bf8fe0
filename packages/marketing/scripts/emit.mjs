// Prints data as TypeScript source for the generated modules: one value per line, and strings too
// long for one line split into concatenated pieces, so that a diff shows exactly what changed.

/** Longest line a generated module may have, in characters. */
const MAX_LINE = 200;
/** Longest string piece on one line, quotes and escapes included. */
const PIECE = 90;
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
// Breaks after whitespace, or after `|` in the long alternations of generated patterns.
const TOKEN = /[^\s|]*[\s|]*/g;

/** `value` (JSON data) as a TypeScript expression; nested lines are indented from `indent`. */
export function literal(value, indent = "") {
  const inner = `${indent}  `;
  if (typeof value === "string") return stringLiteral(value, inner);
  if (Array.isArray(value)) {
    const items = value.map((item) => literal(item, inner));
    return block("[", items, "]", indent);
  }
  if (value === null || typeof value !== "object") return JSON.stringify(value);
  const members = Object.entries(value).filter(([, member]) => member !== undefined);
  const items = members.map(([key, member]) => `${propertyName(key)}: ${literal(member, inner)}`);
  return block("{", items, "}", indent);
}

/** Every line of `text` longer than MAX_LINE, as `name:line (length)`; empty when all fit. */
export function longLines(name, text) {
  return text
    .split("\n")
    .flatMap((line, index) => (line.length > MAX_LINE ? [`${name}:${index + 1} (${line.length})`] : []));
}

function block(open, items, close, indent) {
  if (!items.length) return `${open}${close}`;
  return `${open}\n${items.map((item) => `${indent}  ${item},`).join("\n")}\n${indent}${close}`;
}

function propertyName(key) {
  // A literal `__proto__:` would set the prototype instead of creating the property.
  if (key === "__proto__") return '["__proto__"]';
  return IDENTIFIER.test(key) ? key : JSON.stringify(key);
}

function stringLiteral(text, indent) {
  const whole = JSON.stringify(text);
  if (whole.length <= PIECE) return whole;
  return pieces(text)
    .map((piece) => JSON.stringify(piece))
    .join(` +\n${indent}`);
}

/** `text` cut at word boundaries into pieces whose literals fit PIECE; an overlong word is sliced. */
function pieces(text) {
  const out = [""];
  for (const token of (text.match(TOKEN) ?? []).flatMap(slices)) {
    const last = out.length - 1;
    if (quotedLength(out[last] + token) > PIECE && out[last]) out.push(token);
    else out[last] += token;
  }
  return out;
}

function slices(token) {
  if (quotedLength(token) <= PIECE) return [token];
  const out = [""];
  for (const char of token) {
    if (quotedLength(out[out.length - 1] + char) > PIECE) out.push("");
    out[out.length - 1] += char;
  }
  return out;
}

const quotedLength = (text) => JSON.stringify(text).length;

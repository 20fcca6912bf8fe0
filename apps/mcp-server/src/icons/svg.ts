// The icons' sources: plain shapes on a rounded square, no text, script or external reference.
// src/icons/png.ts holds each one rendered at 64×64 (scripts/icons.mjs).

const tile = (fill: string, body: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="14" fill="${fill}"/>${body}</svg>`;

/** Each icon as SVG markup, by name: the server's (`toolkits`) and one per toolkit. */
export const SVG_ICONS = {
  // A toolbox.
  toolkits: tile(
    "#1e293b",
    '<path d="M24 22v-4a4 4 0 0 1 4-4h8a4 4 0 0 1 4 4v4" fill="none" stroke="#fff" stroke-width="4"/><rect x="12" y="22" width="40" height="28" rx="4" fill="#38bdf8"/><path d="M12 34h40" stroke="#1e293b" stroke-width="3"/>',
  ),
  // A bell: incidents and on-call.
  pager: tile(
    "#b91c1c",
    '<path d="M32 14a12 12 0 0 0-12 12v10l-5 7h34l-5-7V26a12 12 0 0 0-12-12z" fill="#fff"/><circle cx="32" cy="48" r="4" fill="#fff"/>',
  ),
  // A grid of cells.
  sheets: tile(
    "#15803d",
    '<rect x="16" y="14" width="32" height="36" rx="3" fill="#fff"/><path d="M16 26h32M16 38h32M28 14v36" stroke="#15803d" stroke-width="3"/>',
  ),
  // A megaphone.
  marketing: tile(
    "#6d28d9",
    '<path d="M14 28v8h6l18 10V18L20 28z" fill="#fff"/><path d="M44 24a10 10 0 0 1 0 16" fill="none" stroke="#fff" stroke-width="4" stroke-linecap="round"/>',
  ),
} as const;

export type IconName = keyof typeof SVG_ICONS;

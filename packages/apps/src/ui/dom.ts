// Every text a view shows goes through text nodes: upstream strings (incident titles, cell values,
// file names) are never parsed as HTML.

type Child = Node | string | number | undefined | null | false;

/** Properties of an element made by `h`. */
export interface Props {
  class?: string;
  title?: string;
  /** Attributes set as they are (`aria-*`, `data-*`, `type`, `colspan`). */
  attrs?: Record<string, string>;
  onclick?: (event: Event) => void;
}

/** An element with `props`, whose string children become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (props.class) element.className = props.class;
  if (props.title) element.title = props.title;
  for (const [name, value] of Object.entries(props.attrs ?? {})) element.setAttribute(name, value);
  if (props.onclick) element.addEventListener("click", props.onclick);
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    element.append(typeof child === "number" ? String(child) : child);
  }
  return element;
}

/** A button that runs `action` when clicked. */
export const button = (label: string, action: () => void, props: Props = {}): HTMLButtonElement =>
  h("button", { ...props, attrs: { type: "button", ...props.attrs }, onclick: action }, label);

/** `text` cut to `max` characters, with an ellipsis when cut: what a summary for the model quotes. */
export const trimmed = (text: string, max = 120): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text;

/**
 * Text made safe inside an HTML element or a quoted attribute value, for the pages toolkits serve
 * (`Toolkit.pages`) and the hosts around them: `& < > " '` become numeric character references.
 */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

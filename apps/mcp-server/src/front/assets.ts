import { createHash } from "node:crypto";

/** The front page's style: readable, high contrast, no external font or image. */
export const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a;background:#fff}
header{display:flex;align-items:center;gap:.8rem;flex-wrap:wrap}header h1{font-size:1.5rem;margin:0}header p{margin:0 0 0 auto}
small{color:#4a4a4a;font-weight:normal}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ccc}h3{font-size:1.1rem;margin-bottom:.3rem}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #ddd;vertical-align:top}
code{font:14px/1.4 ui-monospace,monospace;overflow-wrap:anywhere}pre{background:#f3f4f6;border:1px solid #d1d5db;border-radius:4px;padding:.6rem;overflow-x:auto;margin:.2rem 0}
pre code{overflow-wrap:normal;white-space:pre}pre:focus{outline:2px solid #1d4ed8}article{border:1px solid #d1d5db;border-radius:6px;padding:0 1rem .6rem;margin:1rem 0}
.label{margin:.6rem 0 0;font-weight:600}.fit{background:#fffbeb;border-left:4px solid #b45309;padding:.4rem .6rem}
button,.install,.connect{font:inherit;font-size:.9rem;padding:.2rem .7rem;border:1px solid #1d4ed8;border-radius:4px;background:#fff;color:#1d4ed8;cursor:pointer;text-decoration:none;display:inline-block}
button.copy{margin-left:.4rem}a{color:#1d4ed8}.connections{list-style:none;padding:0}.connections li{border:1px solid #d1d5db;border-radius:4px;padding:.6rem 1rem;margin:.6rem 0}
.connections form{display:inline;margin-left:.6rem}.connections .connect{margin-left:.6rem}.status{position:fixed;bottom:1rem;right:1rem;margin:0;background:#1a1a1a;color:#fff;padding:.3rem .8rem;border-radius:4px}.status:empty,[hidden]{display:none}`;

/**
 * The page's one script: shows the copy buttons (hidden without it) and copies the text of the
 * element each names, saying so in the status line that screen readers announce.
 */
export const COPY_SCRIPT = `(() => {
  const status = document.getElementById("copy-status");
  for (const button of document.querySelectorAll("button[data-copy]")) {
    button.hidden = false;
    button.addEventListener("click", async () => {
      const text = document.getElementById(button.dataset.copy).textContent;
      try {
        await navigator.clipboard.writeText(text);
        status.textContent = "Copied to the clipboard.";
      } catch {
        status.textContent = "Copying was refused: select the text and copy it.";
      }
      setTimeout(() => {
        status.textContent = "";
      }, 2000);
    });
  }
})();`;

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text).digest("base64")}'`;

/**
 * The front page's CSP: its own script and style only (by hash), icons from this server, forms
 * posting back here, no framing.
 */
export const FRONT_CSP = [
  "default-src 'none'",
  `script-src ${sha256(COPY_SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join("; ");

import { type Html, html } from "./html.js";

// The one look of the server's own pages (/connect, the authorization server's sign-in, consent
// and refusals). Every value reaches them through `html`, which escapes it.

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}label{display:block;margin:.8rem 0 .2rem}input,select{font:inherit;padding:.3rem;width:100%;box-sizing:border-box}
button{font:inherit;padding:.4rem 1rem;margin-top:1rem}.error{color:#a00}ul{padding:0;list-style:none}
li{border:1px solid #ccc;border-radius:4px;padding:.6rem 1rem;margin:.6rem 0}li form{display:inline}small{color:#555}`;

/** A whole page around `body`, headed by `title`. */
export function layout(title: string, body: Html): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><style>${STYLE}</style></head>
<body><h1>${title}</h1>
${body}
</body></html>
`;
}

/** A page of plain paragraphs (text escaped; `Html` parts kept). */
export function messagePage(title: string, ...paragraphs: Array<string | Html>): Html {
  return layout(title, html`${paragraphs.map((paragraph) => html`<p>${paragraph}</p>`)}`);
}

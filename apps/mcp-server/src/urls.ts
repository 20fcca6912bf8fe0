/**
 * `url` without trailing slashes (`https://mcp.example.com/` → `https://mcp.example.com`): the base
 * every URL here is made on by appending a path (`${base}/mcp`), so the issuer, the resource, the
 * redirect URIs and the links agree exactly whichever form the public URL was given in.
 */
export const withoutTrailingSlash = (url: string): string => url.replace(/\/+$/, "");

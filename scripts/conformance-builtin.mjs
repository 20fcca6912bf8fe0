// The conformance suite against the server with its built-in authorization server on
// (`--credentials per-user --authorization-server builtin`, a file store, one named static token for
// signing in). The suite cannot do OAuth, so it is given a token: this module takes one through the
// server's own OAuth flow as a client would (dynamic registration, PKCE, sign-in with the named token,
// consent to every scope, the code exchanged for an access token), then puts a proxy in front of the
// server that adds `Authorization: Bearer <that token>` to every request the suite sends and passes
// everything else (Host and Origin included) on unchanged.
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const CALLBACK = "http://127.0.0.1:9/callback";

/** The server's arguments and environment for the built-in authorization server, in `dir`. */
export function builtinSetup(dir) {
  const token = randomBytes(32).toString("hex");
  return {
    args: ["--credentials", "per-user", "--authorization-server", "builtin"],
    env: {
      MCP_STORE_URL: pathToFileURL(join(dir, "store.json")).href,
      MCP_STORE_KEY: randomBytes(32).toString("base64"),
      MCP_HTTP_BEARER_TOKENS: `conformance:${token}`,
    },
    token,
  };
}

/**
 * Starts the server with `start(args, env)` (resolving to `{ url, log, stop }`), takes an access
 * token for every scope, and resolves to the proxy adding it: `{ url, log, stop, token }`.
 */
export async function startWithBuiltinToken(start) {
  const dir = mkdtempSync(join(tmpdir(), "toolkits-conformance-builtin-"));
  const setup = builtinSetup(dir);
  const server = await start(setup.args, setup.env);
  try {
    const base = new URL(server.url).origin.replace("localhost", "127.0.0.1");
    const accessToken = await accessTokenFrom(base, setup.token);
    const proxy = await startProxy(new URL(base), accessToken);
    return {
      url: new URL(new URL(server.url).pathname, proxy.url).href.replace("127.0.0.1", "localhost"),
      log: server.log,
      token: accessToken,
      async stop() {
        await proxy.stop();
        await server.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** An access token for every scope, through the server's OAuth flow, signing in with `signInToken`. */
async function accessTokenFrom(base, signInToken) {
  const registered = await fetch(`${base}/oauth/register`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ client_name: "MCP conformance suite", redirect_uris: [CALLBACK] }),
  }).then((response) => response.json());
  const verifier = randomBytes(32).toString("base64url");
  const authorize = new URL(`${base}/oauth/authorize`);
  for (const [name, value] of Object.entries({
    client_id: registered.client_id,
    redirect_uri: CALLBACK,
    response_type: "code",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: `${base}/mcp`,
  }))
    authorize.searchParams.set(name, value);
  const browser = cookieBrowser();
  let page = await browser.go(authorize.href);
  page = await browser.go(
    page.url,
    { token: signInToken, csrf: hidden(page.body, "csrf") },
    formAction(page),
  );
  const consent = new URLSearchParams({ csrf: hidden(page.body, "csrf"), decision: "allow" });
  for (const [, scope] of page.body.matchAll(/name="scope" value="([^"]+)"/g)) consent.append("scope", scope);
  page = await browser.go(page.url, consent, formAction(page));
  const code = new URL(page.url).searchParams.get("code");
  if (!code) throw new Error(`No authorization code for the conformance suite (ended at ${page.url})`);
  const tokens = await fetch(`${base}/oauth/token`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: registered.client_id,
      code,
      code_verifier: verifier,
      redirect_uri: CALLBACK,
    }),
  }).then((response) => response.json());
  if (!tokens.access_token)
    throw new Error(`No access token for the conformance suite: ${JSON.stringify(tokens)}`);
  return tokens.access_token;
}

/** Where a page's one form posts, absolute. */
function formAction(page) {
  const action = /<form[^>]*action="([^"]+)"/.exec(page.body)?.[1];
  if (!action) throw new Error(`No form on ${page.url}`);
  return new URL(action.replace(/&amp;/g, "&"), page.url).href;
}

const hidden = (body, name) => new RegExp(`name="${name}" value="([^"]*)"`).exec(body)?.[1] ?? "";

/** Fetch with a cookie jar, following redirects itself and stopping at the client's callback. */
function cookieBrowser() {
  const jar = new Map();
  return {
    async go(url, form, action) {
      let target = action ?? url;
      let method = form ? "POST" : "GET";
      let body = form ? new URLSearchParams(form) : undefined;
      for (let hop = 0; hop < 20; hop++) {
        if (target.startsWith(CALLBACK)) return { url: target, body: "" };
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
        const headers = { cookie, ...(body && { "content-type": "application/x-www-form-urlencoded" }) };
        const response = await fetch(target, { method, headers, body, redirect: "manual" });
        for (const line of response.headers.getSetCookie()) {
          const [pair] = line.split(";");
          const at = pair.indexOf("=");
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = response.headers.get("location");
        if (!location) return { url: target, body: await response.text() };
        await response.arrayBuffer();
        target = new URL(location, target).href;
        method = "GET";
        body = undefined;
      }
      throw new Error(`Too many redirects from ${url}`);
    },
  };
}

/** A loopback proxy to `target` adding `Authorization: Bearer <token>` unless a request has one. */
function startProxy(target, token) {
  const server = createServer((req, res) => {
    const headers = { ...req.headers };
    headers.authorization ??= `Bearer ${token}`;
    const upstream = request(
      { host: target.hostname, port: target.port, path: req.url, method: req.method, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () =>
      resolve({
        url: `http://127.0.0.1:${server.address().port}`,
        stop: () => new Promise((done) => server.close(() => done())),
      }),
    );
  });
}

// The consent rules of the built-in authorization server, on a deployment whose public URL is https
// (TLS ending in front of it, as for a team): its cookies (and /connect's) are `__Host-` or `__Secure-`, `Secure`,
// `HttpOnly` and `SameSite=Lax`; the consent page cannot be framed; an approval is remembered per
// person, client, redirect URI and scopes and asked again when any changes or on `prompt=consent`;
// a consent cookie counts only for the authorization it was shown for. People sign in with a named
// static token (no identity provider needed). The test's browser stands for the proxy too: requests
// to the https public URL go to the server's own http address, with every cookie of the public host.
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authorizeUrl, pkce, register } from "./authorize-flow.js";
import { INSTALL_TIMEOUT_MS } from "./debian.js";
import { type Deployment, startDeployment } from "./deployment.js";

const PUBLIC = "https://mcp.example.test";
const CALLBACK = "http://127.0.0.1:49153/callback";
const OTHER_CALLBACK = "http://127.0.0.1:49153/other";
const TOKEN = randomBytes(32).toString("hex");

/** One answer the browser got, with the cookies it set (the raw Set-Cookie lines). */
interface Answer {
  url: string;
  status: number;
  body: string;
  headers: Headers;
  location: string | undefined;
}

/** A browser behind the TLS proxy: the public URL's requests reach `local`; stops at the client's callback. */
function proxiedBrowser(local: string) {
  const jar = new Map<string, { value: string; path: string }>();
  const setCookies: string[] = [];
  const go = async (target: string, form?: URLSearchParams): Promise<Answer[]> => {
    const seen: Answer[] = [];
    let url = target;
    let body = form;
    for (let hop = 0; hop < 20; hop++) {
      if (url.startsWith(CALLBACK) || url.startsWith(OTHER_CALLBACK)) return seen;
      const path = new URL(url).pathname;
      const cookie = [...jar]
        .filter(([, each]) => path.startsWith(each.path))
        .map(([key, each]) => `${key.split("|")[0]}=${each.value}`)
        .join("; ");
      const headers = { cookie, ...(body && { "content-type": "application/x-www-form-urlencoded" }) };
      const response = await fetch(url.replace(PUBLIC, local), {
        method: body ? "POST" : "GET",
        headers,
        body,
        redirect: "manual",
      });
      for (const line of response.headers.getSetCookie()) {
        setCookies.push(line);
        const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
        const at = pair.indexOf("=");
        const cookiePath = attributes.find((part) => /^path=/i.test(part))?.slice(5) ?? "/";
        jar.set(`${pair.slice(0, at)}|${cookiePath}`, { value: pair.slice(at + 1), path: cookiePath });
      }
      const location = response.headers.get("location") ?? undefined;
      seen.push({
        url,
        status: response.status,
        body: await response.text(),
        headers: response.headers,
        location,
      });
      if (!location) return seen;
      url = new URL(location, url).href;
      body = undefined;
    }
    throw new Error(`Too many redirects from ${target}`);
  };
  return { go, setCookies };
}

describe("consent on a deployment behind TLS", () => {
  let d: Deployment;
  let clientId: string;
  let browser: ReturnType<typeof proxiedBrowser>;

  beforeAll(async () => {
    d = await startDeployment({
      name: "authorize-consent",
      replicas: 1,
      store: "file",
      env: {
        MCP_AUTHORIZATION_SERVER: "builtin",
        MCP_PUBLIC_URL: PUBLIC,
        MCP_HTTP_BEARER_TOKENS: `dana:${TOKEN}`,
        MCP_OAUTH_ISSUER: "",
        MCP_OAUTH_AUDIENCE: "",
        MCP_OAUTH_JWKS_URL: "",
      },
    });
    const registered = await register(d.url, {
      client_name: "Consent test",
      redirect_uris: [CALLBACK, OTHER_CALLBACK],
    });
    clientId = String(registered.body.client_id);
    browser = proxiedBrowser(d.url);
  }, INSTALL_TIMEOUT_MS + 120_000);
  afterAll(() => d?.stop());

  /** Starts an authorization; resolves to the pages up to the consent page or the callback. */
  async function start(params: Record<string, string> = {}) {
    const url = authorizeUrl(d, {
      client_id: clientId,
      redirect_uri: CALLBACK,
      code_challenge: pkce().challenge,
      resource: `${PUBLIC}/mcp`,
      scope: "pager sheets",
      ...params,
    }).replace(d.url, PUBLIC);
    return browser.go(url);
  }

  const last = (answers: Answer[]) => answers.at(-1) as Answer;
  const consentShown = (answers: Answer[]) => last(answers).body.includes("Allow access?");
  const reachedCallback = (answers: Answer[]) => last(answers).location?.includes("/callback?code=") === true;

  /** Answers the consent page `page` (all scopes ticked) with `csrf`, from `action`. */
  function allow(page: Answer, csrf = /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? "") {
    const action = /<form method="post" action="([^"]+)"/.exec(page.body)?.[1] ?? "";
    const form = new URLSearchParams({ csrf, decision: "allow" });
    for (const [, scope] of page.body.matchAll(/name="scope" value="([^"]+)"/g))
      form.append("scope", scope ?? "");
    return browser.go(new URL(action, PUBLIC).href, form);
  }

  it("signs in with the person's named token, then shows a consent page that cannot be framed", async () => {
    const toSignIn = await start();
    expect(last(toSignIn).body).toContain("Paste the access token");
    const csrf = /name="csrf" value="([^"]+)"/.exec(last(toSignIn).body)?.[1] ?? "";
    const signedIn = await browser.go(
      `${PUBLIC}/connect/sign-in`,
      new URLSearchParams({ csrf, token: TOKEN }),
    );
    const page = last(signedIn);
    expect(page.body).toContain("Consent test");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("x-frame-options")).toBe("DENY");
    expect(reachedCallback(await allow(page))).toBe(true);
  });

  it("sets only __Host- or __Secure- cookies, each Secure, HttpOnly and SameSite=Lax", () => {
    const named = browser.setCookies.filter((line) => /toolkits_(as_|consent)/.test(line));
    expect(named.some((line) => line.startsWith("__Host-toolkits_consent="))).toBe(true);
    expect(named.some((line) => line.startsWith("__Host-toolkits_as_session="))).toBe(true);
    for (const line of named) {
      expect(line, line).toMatch(/^__(Host|Secure)-/);
      expect(line.toLowerCase(), line).toContain("; secure");
      expect(line.toLowerCase(), line).toContain("; httponly");
      expect(line.toLowerCase(), line).toContain("samesite=lax");
      if (line.startsWith("__Host-")) expect(line.toLowerCase()).toContain("path=/;");
    }
  });

  it("sets every cookie whose path is / as __Host- (the /connect session's too): no other site can plant one", () => {
    const whole = browser.setCookies.filter((line) => /;\s*path=\/(;|$)/i.test(line));
    expect(whole.some((line) => line.startsWith("__Host-toolkits_connect="))).toBe(true);
    for (const line of whole) {
      expect(line, line).toMatch(/^__Host-/);
      expect(line.toLowerCase(), line).toContain("; secure");
      expect(line.toLowerCase(), line).not.toContain("domain=");
    }
  });

  it("remembers the approval: the same client, redirect URI and scopes go straight back", async () => {
    expect(reachedCallback(await start())).toBe(true);
    expect(reachedCallback(await start({ scope: "pager" }))).toBe(true);
  });

  it.each([
    ["prompt=consent", { prompt: "consent" }],
    ["another redirect URI", { redirect_uri: OTHER_CALLBACK }],
    ["a scope not approved", { scope: "pager sheets write" }],
  ])("asks again for %s", async (_case, params) => {
    const answers = await start(params);
    expect(consentShown(answers)).toBe(true);
  });

  it("takes a consent cookie only for the authorization it was shown for", async () => {
    const first = last(await start({ prompt: "consent" }));
    const firstCsrf = /name="csrf" value="([^"]+)"/.exec(first.body)?.[1] ?? "";
    // A second consent page replaces the cookie: the first page's answer no longer counts.
    const second = last(await start({ prompt: "consent" }));
    const refused = last(await allow(first, firstCsrf));
    expect(refused.status).toBe(400);
    expect(refused.body).toContain("This form has expired");
    expect(reachedCallback(await allow(second))).toBe(true);
  });
});

/**
 * A test browser: fetch with a cookie jar, following redirects itself across this server's pages
 * and the mock authorization servers, reading forms out of pages and submitting them.
 *
 * ```ts
 * const alice = browser({ user: "alice" });
 * const page = await alice.open(link.url);           // signs in at the mock IdP as alice, consents…
 * await alice.submit(page, { api_key: "…" });        // the page's only form, hidden inputs kept
 * await alice.submit(list, {}, /\/pager\/disconnect$/); // the form whose action matches
 * ```
 */

/** The authorization-request parameter telling the mock servers (`mock-oauth.ts`) who signs in. */
export const MOCK_USER_PARAM = "mock_user";

export interface BrowserOptions {
  /** Who signs in at any mock authorization server this browser is sent to; none: the mock's default. */
  user?: string;
}

/** A form read out of a page: where it posts, and its fields with their current values. */
export interface Form {
  /** Absolute URL. */
  action: string;
  method: "GET" | "POST";
  fields: Record<string, string>;
}

/** One response the browser received: a page, or a redirect it followed. */
export interface Page {
  url: string;
  status: number;
  headers: Headers;
  body: string;
  /** The body's text without tags, entities decoded, whitespace collapsed. */
  text: string;
  /** The `location` header of a redirect, absolute. */
  location: string | undefined;
  forms: Form[];
  /** The one form whose action matches `action` (or the page's only form). @throws when not exactly one. */
  form(action?: string | RegExp): Form;
  /** Absolute URLs of the page's links. */
  links: string[];
}

export interface NavigationOptions {
  /** Stop before requesting a URL this accepts, and answer the redirect pointing at it. */
  stopBefore?: (url: URL) => boolean;
}

export interface Browser {
  /** Every response received, redirects included, oldest first. */
  readonly seen: readonly Page[];
  /** Navigates to `url` (GET), following redirects; resolves to the last response. */
  open(url: string, options?: NavigationOptions): Promise<Page>;
  /**
   * Submits a form of `page` (see `Page.form` for `action`) with `fields` over its own values,
   * following redirects.
   */
  submit(
    page: Page,
    fields?: Record<string, string>,
    action?: string | RegExp,
    options?: NavigationOptions,
  ): Promise<Page>;
  /** Posts `fields` as a urlencoded form to `url`, following redirects (a name may repeat in URLSearchParams). */
  post(
    url: string,
    fields: Record<string, string> | URLSearchParams,
    options?: NavigationOptions,
  ): Promise<Page>;
  /** The `set-cookie` headers received, raw, oldest first. */
  readonly setCookies: readonly string[];
}

interface StoredCookie {
  name: string;
  value: string;
  host: string;
  path: string;
  secure: boolean;
  expires: number | undefined;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
/** Most redirects followed for one navigation. */
const MAX_REDIRECTS = 20;

export function browser(options: BrowserOptions = {}): Browser {
  const jar = new Map<string, StoredCookie>();
  const seen: Page[] = [];
  const setCookies: string[] = [];

  const cookieHeader = (url: URL): string | undefined => {
    const now = Date.now();
    const matching = [...jar.values()].filter(
      (cookie) =>
        cookie.host === url.hostname &&
        pathMatches(url.pathname, cookie.path) &&
        (!cookie.secure || url.protocol === "https:") &&
        (cookie.expires === undefined || cookie.expires > now),
    );
    return matching.length
      ? matching.map((cookie) => `${cookie.name}=${cookie.value}`).join("; ")
      : undefined;
  };

  const remember = (url: URL, headers: Headers) => {
    for (const line of headers.getSetCookie()) {
      setCookies.push(line);
      const cookie = parseSetCookie(line, url);
      if (!cookie) continue;
      const key = `${cookie.host}|${cookie.path}|${cookie.name}`;
      if (cookie.expires !== undefined && cookie.expires <= Date.now()) jar.delete(key);
      else jar.set(key, cookie);
    }
  };

  const request = async (
    method: "GET" | "POST",
    target: string,
    body: URLSearchParams | undefined,
    navigation: NavigationOptions = {},
  ): Promise<Page> => {
    let url = withUser(new URL(target), options.user);
    let currentMethod = method;
    let currentBody = body;
    for (let hop = 0; ; hop++) {
      const headers = new Headers({ accept: "text/html" });
      const cookies = cookieHeader(url);
      if (cookies) headers.set("cookie", cookies);
      if (currentBody) headers.set("content-type", "application/x-www-form-urlencoded");
      const response = await fetch(url, {
        method: currentMethod,
        headers,
        body: currentBody,
        redirect: "manual",
      });
      remember(url, response.headers);
      const page = toPage(url, response.status, response.headers, await response.text());
      seen.push(page);
      if (!REDIRECTS.has(page.status) || !page.location) return page;
      if (hop >= MAX_REDIRECTS) throw new Error(`More than ${MAX_REDIRECTS} redirects from ${target}`);
      const next = withUser(new URL(page.location), options.user);
      if (navigation.stopBefore?.(next)) return page;
      if (page.status !== 307 && page.status !== 308) {
        currentMethod = "GET";
        currentBody = undefined;
      }
      url = next;
    }
  };

  return {
    seen,
    setCookies,
    open: (url, navigation) => request("GET", url, undefined, navigation),
    submit(page, fields = {}, action, navigation) {
      const form = page.form(action);
      const values = new URLSearchParams({ ...form.fields, ...fields });
      if (form.method === "GET") {
        const url = new URL(form.action);
        url.search = values.toString();
        return request("GET", url.href, undefined, navigation);
      }
      return request("POST", form.action, values, navigation);
    },
    post: (url, fields, navigation) => request("POST", url, new URLSearchParams(fields), navigation),
  };
}

/** Requests to an authorization endpoint carry the browser's user for the mock servers. */
function withUser(url: URL, user: string | undefined): URL {
  if (user && url.pathname.endsWith("/authorize") && !url.searchParams.has(MOCK_USER_PARAM)) {
    const copy = new URL(url);
    copy.searchParams.set(MOCK_USER_PARAM, user);
    return copy;
  }
  return url;
}

function pathMatches(requestPath: string, cookiePath: string): boolean {
  if (requestPath === cookiePath) return true;
  if (!requestPath.startsWith(cookiePath)) return false;
  return cookiePath.endsWith("/") || requestPath[cookiePath.length] === "/";
}

function parseSetCookie(line: string, url: URL): StoredCookie | undefined {
  const [pair = "", ...attributes] = line.split(";").map((part) => part.trim());
  const at = pair.indexOf("=");
  if (at <= 0) return undefined;
  const cookie: StoredCookie = {
    name: pair.slice(0, at),
    value: pair.slice(at + 1),
    host: url.hostname,
    path: url.pathname.slice(0, url.pathname.lastIndexOf("/")) || "/",
    secure: false,
    expires: undefined,
  };
  for (const attribute of attributes) {
    const [name = "", value = ""] = attribute.split("=", 2);
    const lower = name.toLowerCase();
    if (lower === "path" && value.startsWith("/")) cookie.path = value;
    else if (lower === "secure") cookie.secure = true;
    else if (lower === "max-age") cookie.expires = Date.now() + Number(value) * 1000;
    else if (lower === "expires" && cookie.expires === undefined) cookie.expires = Date.parse(value);
  }
  return cookie;
}

function toPage(url: URL, status: number, headers: Headers, body: string): Page {
  const location = headers.get("location");
  const forms = parseForms(body, url);
  return {
    url: url.href,
    status,
    headers,
    body,
    text: decodeEntities(body.replace(/<style[\s\S]*?<\/style>/gi, "").replace(/<[^>]*>/g, " "))
      .replace(/\s+/g, " ")
      .trim(),
    location: location ? new URL(location, url).href : undefined,
    forms,
    form(action) {
      const matching =
        action === undefined
          ? forms
          : forms.filter((form) =>
              typeof action === "string"
                ? form.action === new URL(action, url).href
                : action.test(form.action),
            );
      if (matching.length !== 1 || !matching[0]) {
        throw new Error(
          `Expected one form${action ? ` matching ${action}` : ""} on ${url.href}, found ${matching.length}`,
        );
      }
      return matching[0];
    },
    links: [...body.matchAll(/<a\b[^>]*\bhref="([^"]*)"/gi)].map(
      (match) => new URL(decodeEntities(match[1] ?? ""), url).href,
    ),
  };
}

function parseForms(body: string, base: URL): Form[] {
  return [...body.matchAll(/<form\b([^>]*)>([\s\S]*?)<\/form>/gi)].map((match) => {
    const attributes = parseAttributes(match[1] ?? "");
    const inner = match[2] ?? "";
    const fields: Record<string, string> = {};
    for (const input of inner.matchAll(/<input\b([^>]*)>/gi)) {
      const input_ = parseAttributes(input[1] ?? "");
      if (input_.name && input_.type !== "submit") fields[input_.name] = input_.value ?? "";
    }
    for (const select of inner.matchAll(/<select\b([^>]*)>([\s\S]*?)<\/select>/gi)) {
      const name = parseAttributes(select[1] ?? "").name;
      const options = [...(select[2] ?? "").matchAll(/<option\b([^>]*)>/gi)].map((option) =>
        parseAttributes(option[1] ?? ""),
      );
      const chosen = options.find((option) => "selected" in option) ?? options[0];
      if (name) fields[name] = chosen?.value ?? "";
    }
    return {
      action: new URL(attributes.action ?? "", base).href,
      method: attributes.method?.toUpperCase() === "POST" ? "POST" : "GET",
      fields,
    };
  });
}

function parseAttributes(text: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of text.matchAll(/([\w-]+)(?:\s*=\s*"([^"]*)")?/g)) {
    if (match[1]) attributes[match[1].toLowerCase()] = decodeEntities(match[2] ?? "");
  }
  return attributes;
}

const ENTITIES: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  "#39": "'",
  nbsp: " ",
};

function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|nbsp);/g, (_, name: string) => ENTITIES[name] ?? "");
}

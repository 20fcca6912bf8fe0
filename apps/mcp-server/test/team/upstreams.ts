// The toolkits' upstreams as one loopback HTTP server that knows whose token it is given:
// PagerDuty under /pagerduty, Google under /google, the Customer.io App API under /marketing.
// OAuth access tokens must be JWTs signed by the matching authorization server (checked against
// its JWKS, with issuer and expiry); their `sub` is the person, whose own data is answered.
// Marketing keys are registered per person. Every request is recorded, and PagerDuty enforces a
// sliding-window limit per person (429 with Retry-After beyond it), like the real one does.
import { randomBytes } from "node:crypto";
import { once } from "node:events";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { createLocalJWKSet, type JSONWebKeySet, jwtVerify } from "jose";

export type Service = "pagerduty" | "google" | "marketing";

/** One request as the fake saw it. */
export interface UpstreamRequest {
  service: Service;
  /** The person the credential belongs to; undefined when it was refused. */
  person: string | undefined;
  method: string;
  /** The path below the service's prefix, without the query. */
  path: string;
  /** Epoch milliseconds at arrival. */
  at: number;
  status: number;
  /** The credential presented (token or key), so a test can tell old tokens from refreshed ones. */
  credential: string;
}

/** An authorization server whose JWTs a service accepts. */
export interface TrustedIssuer {
  issuer: string;
  jwks: JSONWebKeySet;
}

export interface FakeUpstreamsOptions {
  pagerduty: TrustedIssuer;
  google: TrustedIssuer;
  /** PagerDuty's per-person limit: at most `requests` in any `windowMs` (default 960 per 60 s). */
  pagerLimit?: { requests: number; windowMs: number };
}

export interface FakeUpstreams {
  /** PAGER_API_URL, GOOGLE_API_ROOT_URL and MARKETING_API_URL for the server. */
  env: { PAGER_API_URL: string; GOOGLE_API_ROOT_URL: string; MARKETING_API_URL: string };
  /** Requests of `service` (and `person`, when given). */
  of(service: Service, person?: string): UpstreamRequest[];
  /** Registers a new App API key for `person` and returns it. */
  marketingKey(person: string): string;
  /** Makes every answer of `service` wait `ms` first (0: none). */
  delay(service: Service, ms: number): void;
  stop(): Promise<void>;
}

/** The person-specific records the fake serves, for assertions. */
export interface PersonData {
  pagerUserId: string;
  pagerUserName: string;
  email: string;
  incidentIds: string[];
  incidentTitles: string[];
  workspaceId: string;
  workspaceName: string;
}

const title = (person: string) => person.charAt(0).toUpperCase() + person.slice(1);

export function personData(person: string): PersonData {
  const upper = person.toUpperCase();
  return {
    pagerUserId: `PU${upper}`,
    pagerUserName: `${title(person)} Example`,
    email: `${person}@example.com`,
    incidentIds: [`PI${upper}1`, `PI${upper}2`],
    incidentTitles: [`${title(person)}'s database is down`, `${title(person)}'s queue is backing up`],
    workspaceId: `ws-${person}`,
    workspaceName: `${title(person)}'s workspace`,
  };
}

type Answer = { status: number; body: unknown; headers?: Record<string, string> };

/** Starts the fake on a free loopback port. */
export async function startFakeUpstreams(options: FakeUpstreamsOptions): Promise<FakeUpstreams> {
  const verifiers = {
    pagerduty: verifierFor(options.pagerduty),
    google: verifierFor(options.google),
  };
  const limit = options.pagerLimit ?? { requests: 960, windowMs: 60_000 };
  const requests: UpstreamRequest[] = [];
  const keys = new Map<string, string>();
  const delays: Record<Service, number> = { pagerduty: 0, google: 0, marketing: 0 };
  /** Accepted PagerDuty requests per person, for the sliding window. */
  const accepted = new Map<string, number[]>();

  const overLimit = (person: string, now: number): number | undefined => {
    const times = (accepted.get(person) ?? []).filter((at) => at > now - limit.windowMs);
    accepted.set(person, times);
    if (times.length < limit.requests) {
      times.push(now);
      return undefined;
    }
    return Math.max(1, Math.ceil(((times[0] ?? now) + limit.windowMs - now) / 1000));
  };

  const handle = async (req: IncomingMessage): Promise<Answer & { service?: Service; person?: string }> => {
    const url = new URL(req.url ?? "/", "http://fake");
    const [, prefix, ...rest] = url.pathname.split("/");
    const path = `/${rest.join("/")}`;
    const credential = bearer(req.headers.authorization);
    if (prefix === "marketing") {
      const person = keys.get(credential);
      if (!person) return { status: 401, body: { meta: { error: "Unauthorized request" } } };
      return { person, ...marketing(person, req.method ?? "GET", path) };
    }
    if (prefix !== "pagerduty" && prefix !== "google")
      return { status: 404, body: { error: "no such service" } };
    const person = await verifiers[prefix](credential);
    if (!person) return { status: 401, body: unauthorized(prefix) };
    if (prefix === "pagerduty") {
      const retryAfter = overLimit(person, Date.now());
      if (retryAfter !== undefined)
        return {
          person,
          status: 429,
          headers: { "retry-after": String(retryAfter) },
          body: { error: { message: "Rate Limit Exceeded", code: 2020 } },
        };
      return { person, ...pagerduty(person, path) };
    }
    return { person, ...google(person, path) };
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const at = Date.now();
    req.resume();
    handle(req)
      .then(async (answer) => {
        const [, prefix = "", ...rest] = new URL(req.url ?? "/", "http://fake").pathname.split("/");
        const service = (
          ["pagerduty", "google", "marketing"].includes(prefix) ? prefix : "google"
        ) as Service;
        requests.push({
          service,
          person: answer.person,
          method: req.method ?? "GET",
          path: `/${rest.join("/")}`,
          at,
          status: answer.status,
          credential: bearer(req.headers.authorization),
        });
        if (delays[service]) await new Promise((resolve) => setTimeout(resolve, delays[service]));
        if (res.destroyed) return;
        res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
        res.end(JSON.stringify(answer.body));
      })
      .catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: String(error) }));
      });
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: {
      PAGER_API_URL: `${url}/pagerduty`,
      GOOGLE_API_ROOT_URL: `${url}/google/`,
      MARKETING_API_URL: `${url}/marketing`,
    },
    of: (service, person) =>
      requests.filter(
        (entry) => entry.service === service && (person === undefined || entry.person === person),
      ),
    marketingKey(person) {
      const key = `mk${randomBytes(18).toString("hex")}`;
      keys.set(key, person);
      return key;
    },
    delay(service, ms) {
      delays[service] = ms;
    },
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const bearer = (header: string | undefined): string => /^Bearer (\S+)$/i.exec(header ?? "")?.[1] ?? "";

/** The person (`sub`) of a valid JWT from `trusted`, or undefined. */
function verifierFor(trusted: TrustedIssuer): (token: string) => Promise<string | undefined> {
  const keys = createLocalJWKSet(trusted.jwks);
  return async (token) => {
    if (!token) return undefined;
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: trusted.issuer,
        requiredClaims: ["exp", "sub"],
      });
      return payload.sub;
    } catch {
      return undefined;
    }
  };
}

function unauthorized(service: "pagerduty" | "google"): unknown {
  return service === "pagerduty"
    ? { error: { message: "Unauthorized", code: 2006 } }
    : {
        error: {
          code: 401,
          message: "Request had invalid authentication credentials.",
          status: "UNAUTHENTICATED",
        },
      };
}

function pagerduty(person: string, path: string): Answer {
  const data = personData(person);
  const user = {
    id: data.pagerUserId,
    type: "user",
    summary: data.pagerUserName,
    name: data.pagerUserName,
    email: data.email,
    time_zone: "UTC",
    teams: [],
  };
  if (path === "/users/me") return { status: 200, body: { user } };
  if (path === "/oncalls") return { status: 200, body: { oncalls: [], limit: 100, offset: 0, more: false } };
  const incidents = data.incidentIds.map((id, index) => ({
    id,
    type: "incident",
    summary: data.incidentTitles[index],
    incident_number: index + 1,
    title: data.incidentTitles[index],
    status: "triggered",
    urgency: "high",
    created_at: "2026-01-01T00:00:00Z",
    service: {
      id: `PS${person.toUpperCase()}`,
      type: "service_reference",
      summary: `${title(person)}'s service`,
    },
    teams: [],
    assignments: [
      { at: "2026-01-01T00:00:00Z", assignee: { id: user.id, type: "user_reference", summary: user.name } },
    ],
  }));
  if (path === "/incidents") return { status: 200, body: { incidents, limit: 25, offset: 0, more: false } };
  // One of the person's own incidents; anyone else's is not found, as PagerDuty answers another account's.
  const incident = incidents.find((entry) => path === `/incidents/${entry.id}`);
  if (incident) return { status: 200, body: { incident } };
  return { status: 404, body: { error: { message: "Not Found", code: 2100 } } };
}

function google(person: string, path: string): Answer {
  const data = personData(person);
  if (path === "/oauth2/v2/userinfo")
    return {
      status: 200,
      body: { id: `g-${person}`, email: data.email, verified_email: true, name: data.pagerUserName },
    };
  if (path === "/drive/v3/about")
    return {
      status: 200,
      body: {
        user: { displayName: data.pagerUserName, emailAddress: data.email },
        storageQuota: { limit: "1000000", usage: "1000", usageInDrive: "500" },
        canCreateDrives: false,
      },
    };
  return {
    status: 404,
    body: { error: { code: 404, message: "Requested entity was not found.", status: "NOT_FOUND" } },
  };
}

function marketing(person: string, method: string, path: string): Answer {
  const data = personData(person);
  if (method === "GET" && path === "/v1/workspaces")
    return {
      status: 200,
      body: {
        workspaces: [
          {
            id: data.workspaceId,
            name: data.workspaceName,
            messages_sent: 10,
            billable_messages_sent: 5,
            people: 3,
            object_types: 1,
            objects: 2,
          },
        ],
      },
    };
  return { status: 404, body: { errors: [{ detail: "not found", status: "404" }] } };
}

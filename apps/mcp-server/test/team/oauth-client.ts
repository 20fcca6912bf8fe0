// MCP clients that connect by URL alone, with their SDK's own OAuth support: an in-memory
// OAuthClientProvider (registration by metadata document when given one, else dynamic
// registration), a loopback callback the test owns (as Claude Code's and VS Code's), and an
// `authorize` step that drives a browser through sign-in and consent to that callback.
import { once } from "node:events";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  Client as ClientV2,
  StreamableHTTPClientTransport as HttpV2,
  UnauthorizedError as UnauthorizedV2,
} from "@modelcontextprotocol/client";
import { UnauthorizedError as UnauthorizedV1 } from "@modelcontextprotocol/sdk/client/auth.js";
import { Client as ClientV1 } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as HttpV1 } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Generation, type ListedTool, type Seen, seen } from "../clients.js";

/** Where the authorization server sends the browser back to: a loopback server of the test's. */
export interface Callback {
  /** `http://127.0.0.1:<port>/callback`. */
  url: string;
  /** The query of the next request to the callback (`code`, `state`, `iss`, or `error`). */
  next(): Promise<URLSearchParams>;
  stop(): Promise<void>;
}

export async function startCallback(): Promise<Callback> {
  const waiting: ((params: URLSearchParams) => void)[] = [];
  const arrived: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    // Only the callback counts: a browser there also asks for its favicon.
    if (url.pathname !== "/callback") return void res.writeHead(404).end();
    const params = url.searchParams;
    res.writeHead(200, { "content-type": "text/html" }).end("<p>Authorized. You can close this page.</p>");
    const waiter = waiting.shift();
    if (waiter) waiter(params);
    else arrived.push(params);
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    next: () => {
      const early = arrived.shift();
      return early ? Promise.resolve(early) : new Promise((resolve) => waiting.push(resolve));
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** Takes the browser from the authorization URL to the callback; resolves once it is done. */
export type Authorize = (authorizationUrl: URL) => Promise<void>;

/** What a test gives the SDK: what its provider keeps, for assertions. */
export interface ProviderOptions {
  callback: Callback;
  clientName: string;
  /** Register by this metadata document URL (CIMD) instead of dynamic registration. */
  clientMetadataUrl?: string;
  authorize: Authorize;
}

/** The SDK's OAuthClientProvider, in memory; each generation's interface is the same shape. */
export class MemoryProvider {
  client: Record<string, unknown> | undefined;
  saved: { access_token: string; refresh_token?: string; scope?: string } | undefined;
  /** Every token set saved, oldest first. */
  readonly history: NonNullable<MemoryProvider["saved"]>[] = [];
  private verifier = "";
  /** What the SDK (v2) discovered at redirect time, to check the callback against (SEP-2352). */
  private discovery: unknown;
  /** The authorization under way: the browser's run to the callback. */
  pending: Promise<void> | undefined;

  constructor(readonly options: ProviderOptions) {}

  get redirectUrl(): string {
    return this.options.callback.url;
  }
  get clientMetadataUrl(): string | undefined {
    return this.options.clientMetadataUrl;
  }
  get clientMetadata() {
    return {
      client_name: this.options.clientName,
      redirect_uris: [this.options.callback.url],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }
  clientInformation() {
    return this.client as { client_id: string } | undefined;
  }
  saveClientInformation(info: Record<string, unknown>) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: NonNullable<MemoryProvider["saved"]>) {
    this.saved = tokens;
    this.history.push(tokens);
  }
  redirectToAuthorization(url: URL) {
    this.pending = this.options.authorize(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  invalidateCredentials(scope: string) {
    if (scope === "all" || scope === "tokens") this.saved = undefined;
    if (scope === "all" || scope === "client") this.client = undefined;
  }
}

/** A connected client that finishes any authorization its SDK asks for (401, or a 403 step-up). */
export interface OAuthTestClient {
  generation: Generation;
  provider: MemoryProvider;
  listTools(): Promise<ListedTool[]>;
  call(name: string, args?: Record<string, unknown>): Promise<Seen>;
  close(): Promise<void>;
}

/**
 * Connects generation `generation`'s client to `mcpUrl` with `provider`, through `fetch` (which a
 * test may point at one replica or another): whenever the SDK stops for an authorization, the
 * provider's browser run completes it, the code goes to `finishAuth` and the request is retried.
 */
export async function connectOAuth(
  generation: Generation,
  mcpUrl: string,
  provider: MemoryProvider,
  fetchFn: typeof fetch = fetch,
): Promise<OAuthTestClient> {
  const info = { name: `oauth-${generation}`, version: "0.0.0" };
  const options = { authProvider: provider as never, fetch: fetchFn };
  const { callback } = provider.options;
  const finish = async (transport: Finisher) => {
    const params = callback.next();
    await provider.pending;
    const answer = await params;
    const code = answer.get("code");
    if (!code) throw new Error(`authorization refused: ${answer.toString()}`);
    // v2 checks `iss` (RFC 9207) when given the whole callback; v1 takes the code.
    await (generation === "v2" ? (transport as HttpV2).finishAuth(answer) : transport.finishAuth(code));
  };
  const authorized = async <T>(transport: Finisher, run: () => Promise<T>) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return await run();
      } catch (error) {
        if (!unauthorized(error) || attempt > 2) throw error;
        await finish(transport);
      }
    }
  };
  // A connect stopped for sign-in starts again, once signed in, on a new client and transport.
  for (let attempt = 0; ; attempt++) {
    const transport =
      generation === "v1" ? new HttpV1(new URL(mcpUrl), options) : new HttpV2(new URL(mcpUrl), options);
    try {
      if (generation === "v1") {
        const client = new ClientV1(info);
        await client.connect(transport as HttpV1);
        return wrap(generation, provider, transport, authorized, {
          listTools: async () => (await client.listTools()).tools as ListedTool[],
          call: async (name, args) =>
            seen((await client.callTool({ name, arguments: args })) as Parameters<typeof seen>[0]),
          close: () => client.close(),
        });
      }
      const client = new ClientV2(info, { versionNegotiation: { mode: { pin: "2026-07-28" } } });
      await client.connect(transport as HttpV2);
      return wrap(generation, provider, transport, authorized, {
        listTools: async () => (await client.listTools()).tools as ListedTool[],
        call: async (name, args) => seen(await client.callTool({ name, arguments: args })),
        close: () => client.close(),
      });
    } catch (error) {
      if (!unauthorized(error) || attempt > 2) throw error;
      await finish(transport);
    }
  }
}

/** What finishes an authorization: either generation's transport. */
type Finisher = { finishAuth(code: string): Promise<void> };

const unauthorized = (error: unknown) => error instanceof UnauthorizedV1 || error instanceof UnauthorizedV2;

function wrap(
  generation: Generation,
  provider: MemoryProvider,
  transport: { finishAuth(code: string): Promise<void> },
  authorized: <T>(
    transport: { finishAuth(code: string): Promise<void> },
    run: () => Promise<T>,
  ) => Promise<T>,
  raw: {
    listTools(): Promise<ListedTool[]>;
    call(name: string, args: Record<string, unknown>): Promise<Seen>;
    close(): Promise<void>;
  },
): OAuthTestClient {
  return {
    generation,
    provider,
    listTools: () => authorized(transport, raw.listTools),
    call: (name, args = {}) => authorized(transport, () => raw.call(name, args)),
    close: raw.close,
  };
}

import type { AdminRequest } from "../admin/index.js";
import type { Environment, Values } from "./setting.js";

export type { AdminRequest } from "../admin/index.js";

import type { SETTINGS } from "./table.js";

/** An OAuth client of `login` and the per-user /connect pages, from `<PREFIX>_OAUTH_*` and the region. */
export interface OAuthClientConfig {
  clientId?: string;
  clientSecret?: string;
  /** Discover the endpoints from this issuer instead of the provider's own. */
  issuer?: string;
  /** The provider's region (`PAGER_REGION`: `us` or `eu`), which picks its sign-in hosts. */
  region?: string;
}

/**
 * Everything the server is told, from flags, their `MCP_*` variables and the variables without
 * flags, as the settings table (table.ts) states them. Times are in milliseconds, sizes in bytes.
 */
export type ServerOptions = Omit<Values<typeof SETTINGS>, "oauthClients"> & {
  /** The OAuth clients of `login` and the /connect pages, by provider. */
  oauthClients: { pager: OAuthClientConfig; google: OAuthClientConfig };
  /**
   * The environment as the server started, for the toolkits' own variables (credentials such as
   * `PAGER_ACCESS_TOKEN`, settings such as `PAGER_REGION`; see `TOOLKIT_VARIABLES`).
   */
  toolkitEnv: Environment;
};

/** What `login`, `logout` and `auth status` are given besides their arguments. */
export type SigninSettings = Pick<ServerOptions, "tokenFile" | "oauthClients" | "toolkitEnv">;

/** `login`'s own options. */
export interface LoginOptions {
  /** Open the sign-in URL in a browser; false for `--no-browser` or `BROWSER=none`. */
  browser: boolean;
  /** The loopback redirect port; 0 picks a free one. */
  port: number;
  /** How long to wait for the sign-in, in seconds; undefined for the default (300). */
  timeoutSeconds?: number;
  /** The account's label (`--label`); undefined: named from the account (see credentials/labels.ts). */
  label?: string;
  /** Make the account the provider's default (`--default`). */
  makeDefault?: boolean;
}

/** `logout`'s own options. */
export interface LogoutOptions {
  /** Which account (`--label`); undefined for the provider's default. */
  label?: string;
}

/** What the commands do; `cli.ts` supplies them, loading each one's code only when it runs. */
export interface Commands {
  serve(options: ServerOptions): Promise<void>;
  /** Resolves to the process exit code. */
  login(provider: string, options: LoginOptions, settings: SigninSettings): Promise<number>;
  /** Resolves to the process exit code. */
  logout(provider: string, options: LogoutOptions, settings: SigninSettings): Promise<number>;
  /** Resolves to the process exit code. */
  authStatus(settings: SigninSettings): Promise<number>;
  /** `admin <command>`; resolves to the process exit code. */
  admin(request: AdminRequest, settings: AdminSettings): Promise<number>;
}

/** What `admin` is given: the server's store settings and OAuth clients. */
export type AdminSettings = Pick<
  ServerOptions,
  "storeUrl" | "storePath" | "storeKey" | "storeKeyPrevious" | "oauthClients"
>;

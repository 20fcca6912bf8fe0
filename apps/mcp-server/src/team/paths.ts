/** Where the connect pages live, below the server's public URL. */
export const CONNECT_PATH = "/connect";

/** Whether a request's path belongs to the connect pages. */
export const isConnectPath = (path: string): boolean =>
  path === CONNECT_PATH || path.startsWith(`${CONNECT_PATH}/`);

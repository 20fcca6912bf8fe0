import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { sandbox } from "@toolkits/pager/sandbox";

/** One request the stand-in received: its path and query, and when (ms on the performance clock). */
export interface Arrival {
  url: string;
  at: number;
}

/**
 * A PagerDuty stand-in on 127.0.0.1 whose user directory is `users` people long and answers each
 * page after `delayMs`, so a `SearchUsers` scan takes a while and reports progress. PagerDuty's own
 * name query finds nobody, which sends every search to the directory scan. Records every request.
 */
export async function slowDirectory(users: number, delayMs: number) {
  const { account } = sandbox({ users });
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    arrivals.push({ url: `${url.pathname}${url.search}`, at: performance.now() });
    const offset = Number(url.searchParams.get("offset") ?? 0);
    const limit = Number(url.searchParams.get("limit") ?? 25);
    const listed = url.searchParams.has("query") ? [] : account.users;
    const body = {
      users: listed.slice(offset, offset + limit),
      limit,
      offset,
      more: offset + limit < listed.length,
      total: url.searchParams.get("total") === "true" ? listed.length : null,
    };
    const timer = setTimeout(() => {
      res.writeHead(url.pathname === "/users" ? 200 : 404, { "content-type": "application/json" });
      res.end(JSON.stringify(url.pathname === "/users" ? body : { error: { message: "Not Found" } }));
    }, delayMs);
    res.on("close", () => clearTimeout(timer));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    arrivals,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

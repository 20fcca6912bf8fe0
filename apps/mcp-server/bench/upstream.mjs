// A zero-latency stand-in for PagerDuty on 127.0.0.1, answering from the sandbox's seeded account:
// GET /services/{id}, GET /incidents (10 incidents) and GET /users/me.
import { createServer } from "node:http";
import { sandbox } from "@toolkits/pager/sandbox";

/** Starts the stand-in; resolves with its base URL and a `close()`. */
export async function localPagerDuty() {
  const { account } = sandbox();
  const bodies = new Map([
    ["/users/me", JSON.stringify({ user: account.me })],
    [
      "/incidents",
      JSON.stringify({ incidents: account.incidents.slice(0, 10), limit: 10, offset: 0, more: true }),
    ],
    ...account.services.map((service) => [`/services/${service.id}`, JSON.stringify({ service })]),
  ]);
  const server = createServer((request, response) => {
    const body = bodies.get(new URL(request.url ?? "/", "http://localhost").pathname);
    response.writeHead(body ? 200 : 404, { "content-type": "application/json" });
    response.end(body ?? '{"error":{"message":"Not Found","code":2100}}');
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    serviceId: account.services[0].id,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// A zero-latency stand-in for PagerDuty on 127.0.0.1: GET /incidents/{id} answers with PagerDuty's
// own example incident (bench/data/pagerduty-incident.json) for its id; GET /services/{id},
// GET /incidents (10 incidents) and GET /users/me answer from the sandbox's seeded account.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { sandbox } from "@toolkits/pager/sandbox";

// Served compact, as PagerDuty's API sends JSON, whatever the vendored file's indentation.
const example = JSON.parse(readFileSync(new URL("./data/pagerduty-incident.json", import.meta.url), "utf8"));
const incidentBody = JSON.stringify(example);

/**
 * Starts the stand-in; resolves with its base URL, the ids it knows (`serviceId`, `incidentId`),
 * the byte size of the incident answer (`incidentBytes`) and a `close()`.
 */
export async function localPagerDuty() {
  const { account } = sandbox();
  const bodies = new Map([
    ["/users/me", JSON.stringify({ user: account.me })],
    [
      "/incidents",
      JSON.stringify({ incidents: account.incidents.slice(0, 10), limit: 10, offset: 0, more: true }),
    ],
    [`/incidents/${example.incident.id}`, incidentBody],
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
    incidentId: example.incident.id,
    incidentBytes: Buffer.byteLength(incidentBody),
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

// Shared pieces of the comparator servers the benchmarks measure ours against: the small tools a
// bare SDK server registers, and the same upstream GET that Pager.GetIncident makes, with the
// toolkit's accept and authorization headers, against PAGER_API_URL.
import { z } from "zod";

/** Registers `count` small tools, a zod string parameter each, as a minimal SDK server would. */
export function registerSmallTools(server, count) {
  for (let i = 0; i < count; i++) {
    server.registerTool(
      `Bare_Tool${i}`,
      { description: `Does thing ${i}.`, inputSchema: z.object({ id: z.string().describe("An id") }) },
      async ({ id }) => ({ content: [{ type: "text", text: id }] }),
    );
  }
}

const headers = {
  authorization: `Bearer ${process.env.PAGER_ACCESS_TOKEN}`,
  accept: "application/vnd.pagerduty+json;version=2",
};

/** GET /incidents/{id} from the upstream; resolves with a tool result carrying the JSON as text. */
export async function getIncident(id) {
  const response = await fetch(`${process.env.PAGER_API_URL}/incidents/${encodeURIComponent(id)}`, {
    headers,
  });
  const text = await response.text();
  return { content: [{ type: "text", text }], ...(response.ok ? {} : { isError: true }) };
}

/** Registers `name`, a tool doing getIncident: the SDK's cost for the call Pager.GetIncident makes. */
export function registerGetIncident(server, name) {
  server.registerTool(
    name,
    {
      description: "Gets an incident by id.",
      inputSchema: z.object({ incident_id: z.string().describe("The incident id") }),
    },
    ({ incident_id }) => getIncident(incident_id),
  );
}

/** Tells the parent benchmark where an HTTP comparator listens, in the shape ours logs it. */
export function announce(server) {
  process.stderr.write(`${JSON.stringify({ url: `http://127.0.0.1:${server.address().port}/mcp` })}\n`);
}

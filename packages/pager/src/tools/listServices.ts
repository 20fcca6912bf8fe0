import { defineTool, lazy, READ_ONLY_HINTS } from "@toolkits/core";
import { z } from "zod";
import { createPagerClient } from "../client.js";
import { limitParam, offsetParam, pageParams, pagerAuth, SCOPES } from "../params.js";
import { listOutput, listResult, serviceRecord, serviceSchema } from "../records.js";

const inputSchema = lazy(() =>
  z.object({
    query: z.string().min(1).optional().describe("Name fragment"),
    limit: limitParam(),
    offset: offsetParam(),
  }),
);
const outputSchema = lazy(() => listOutput("services", serviceSchema()));

export const listServices = defineTool({
  name: "Pager.ListServices",
  title: "List services",
  description: "Lists services by name, with status, escalation policy and teams.",
  input: inputSchema,
  output: outputSchema,
  hints: READ_ONLY_HINTS,
  auth: pagerAuth(SCOPES.services),
  async handler(input, context) {
    const page = pageParams(input);
    const client = await createPagerClient(context);
    return listResult("services", await client.services({ ...page, query: input.query }), serviceRecord);
  },
});

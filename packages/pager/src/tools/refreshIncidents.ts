import { defineTool } from "@toolkits/core";
import { listIncidents } from "./listIncidents.js";

/**
 * The incidents view's refresh: `Pager.ListIncidents` again, under a name of its own so a host that
 * renders views lists it for the view only (`visibility: ["app"]`) and the model never sees a
 * second way to list incidents. Read-only, so a host that shows it to the model anyway does no harm.
 */
export const refreshIncidents = defineTool({
  name: "Pager.RefreshIncidents",
  title: "Refresh incidents",
  description:
    "Re-reads the incidents an incidents view shows: the same filters and answer as Pager.ListIncidents. For views; models call Pager.ListIncidents.",
  // Read through, not spread: a spread would build Pager.ListIncidents' schemas as this module loads.
  input: () => listIncidents.input,
  output: () => listIncidents.output,
  hints: listIncidents.hints,
  auth: listIncidents.auth,
  handler: listIncidents.handler,
});

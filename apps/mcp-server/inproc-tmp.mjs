import { localPagerDuty } from "./bench/upstream.mjs";
const { createToolRegistry } = await import("@toolkits/core/mcp");
const { envHost } = await import("@toolkits/core");
const { pagerToolkit } = await import("@toolkits/pager");
const upstream = await localPagerDuty();
const host = envHost({ PAGER_API_URL: upstream.url, PAGER_ACCESS_TOKEN: "t" });
const reg = createToolRegistry(pagerToolkit.tools, host);
const signal = new AbortController().signal;
const ours = () => reg.call("Pager_GetIncident", { incident_id: upstream.incidentId }, { signal });
const bare = async () => { const r = await fetch(`${upstream.url}/incidents/${upstream.incidentId}`, { headers: { authorization: "Token token=t", accept: "application/vnd.pagerduty+json;version=2" } }); return { content: [{ type: "text", text: await r.text() }] }; };
async function time(f, n) { const c0 = process.cpuUsage(); const t0 = performance.now(); for (let i = 0; i < n; i++) await f(); const c = process.cpuUsage(c0); return { wall: ((performance.now() - t0) / n * 1000).toFixed(0), cpu: ((c.user + c.system) / n).toFixed(0) }; }
for (let r = 0; r < 3; r++) { await time(ours, 300); await time(bare, 300); console.log("ours", await time(ours, 3000), "bare", await time(bare, 3000)); }
await upstream.close();

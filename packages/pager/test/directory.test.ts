import { useToolkitSandbox } from "@toolkits/core/testing";
import { describe, expect, it } from "vitest";
import { pagerToolkit } from "../src/index.js";
import { PAGER, readAllPages } from "./kit.js";

const pd = useToolkitSandbox(pagerToolkit, PAGER);

describe("Pager.ListEscalationPolicies and Pager.GetEscalationPolicy", () => {
  it("lists policies by name with their levels, targets, services and teams", async () => {
    const result = await pd.call("Pager.ListEscalationPolicies");
    expect(result.isError, result.text).toBe(false);
    const policies = result.data?.escalation_policies as { name: string }[];
    expect(policies.map((p) => p.name)).toEqual([...pd.sandbox.account.policies.map((p) => p.name)].sort());
    expect(policies.find((p) => p.name === "Payments Escalation")).toEqual({
      id: "PE00000",
      name: "Payments Escalation",
      description: "Pages Payments Primary, then the Payments manager",
      repeats: 0,
      rules: [
        {
          level: 1,
          delay_minutes: 15,
          targets: [{ id: "PS00000", name: "Payments Primary", kind: "schedule" }],
        },
        { level: 2, delay_minutes: 30, targets: [{ id: "PU00001", name: "Jordan Costa", kind: "user" }] },
      ],
      services: [
        { id: "PV00000", name: "Checkout API" },
        { id: "PV00001", name: "Payment Gateway" },
        { id: "PV00002", name: "Ledger" },
      ],
      teams: [{ id: "PT00000", name: "Payments" }],
      html_url: "https://acme.pagerduty.com/escalation_policies/PE00000",
    });
  });

  it("pages to the end", async () => {
    const { items, pages } = await readAllPages(
      pd.call,
      "Pager.ListEscalationPolicies",
      "escalation_policies",
      {
        limit: 2,
      },
    );
    expect(items).toHaveLength(pd.sandbox.account.policies.length);
    expect(pages.map((page) => page.data?.next_offset)).toEqual([2, 4, undefined]);
  });

  it("gets one policy, and reports an unknown one as not_found", async () => {
    const found = await pd.call("Pager.GetEscalationPolicy", { escalation_policy_id: "PE00003" });
    expect(found.data?.escalation_policy).toMatchObject({
      id: "PE00003",
      name: "Data Escalation",
      repeats: 0,
    });
    const missing = await pd.call("Pager.GetEscalationPolicy", { escalation_policy_id: "PXXXXXX" });
    expect(missing.text).toBe(
      'not_found: GET /escalation_policies/{id} failed with HTTP 404: Escalation Policy Not Found. No such id "PXXXXXX"; Pager.ListEscalationPolicies lists valid ids.',
    );
  });
});

describe("Pager.ListServices and Pager.GetService", () => {
  it("searches services by name fragment", async () => {
    const result = await pd.call("Pager.ListServices", { query: "pay" });
    expect(pd.queries("/services")[0]?.get("query")).toBe("pay");
    expect(result.data).toEqual({
      services: [
        {
          id: "PV00001",
          name: "Payment Gateway",
          description: "Payment Gateway, owned by Payments",
          status: "warning",
          escalation_policy: { id: "PE00000", name: "Payments Escalation" },
          teams: [{ id: "PT00000", name: "Payments" }],
          last_incident_at: pd.sandbox.account.services[1]?.last_incident_timestamp,
          acknowledgement_timeout_s: 1800,
          auto_resolve_timeout_s: 14400,
          html_url: "https://acme.pagerduty.com/service-directory/PV00001",
        },
      ],
      limit: 10,
      offset: 0,
      more: false,
    });
  });

  it("pages to the end", async () => {
    const { items } = await readAllPages(pd.call, "Pager.ListServices", "services", { limit: 3 });
    const byName = pd.sandbox.account.services.map((s) => s.name).sort((a, b) => a.localeCompare(b));
    expect(items.map((s) => s.name)).toEqual(byName);
  });

  it("gets one service, and reports an unknown one as not_found", async () => {
    const found = await pd.call("Pager.GetService", { service_id: "PV00004" });
    expect(found.data?.service).toMatchObject({ id: "PV00004", name: "Kubernetes Control Plane" });
    const missing = await pd.call("Pager.GetService", { service_id: "PNOSUCH" });
    expect(missing.text).toMatch(
      /^not_found: .*Service Not Found\. .*Pager\.ListServices lists valid ids\.$/,
    );
  });
});

describe("Pager.ListUsers", () => {
  it("lists users with email, role and teams, and pages to the end", async () => {
    const { items, pages } = await readAllPages(pd.call, "Pager.ListUsers", "users", { limit: 15 });
    expect(items).toHaveLength(pd.sandbox.account.users.length);
    expect(pages).toHaveLength(3);
    expect(items[0]).toEqual({
      id: "PU00000",
      name: "Avery Quinn",
      email: "avery.quinn@acme.example",
      role: "admin",
      job_title: pd.sandbox.account.me.job_title,
      time_zone: pd.sandbox.account.me.time_zone,
      teams: [
        { id: "PT00000", name: "Payments" },
        { id: "PT00001", name: "Platform" },
      ],
      html_url: "https://acme.pagerduty.com/users/PU00000",
    });
    expect(pd.queries("/users")[0]?.getAll("include[]")).toEqual(["teams"]);
  });
});

describe("Pager.ListTeams and Pager.GetTeam", () => {
  it("lists teams and pages to the end", async () => {
    const { items } = await readAllPages(pd.call, "Pager.ListTeams", "teams", { limit: 2 });
    expect(items.map((team) => team.name)).toEqual(["Payments", "Platform", "Mobile", "Data", "Security"]);
  });

  it("gets a team with its members' roles and the services and policies it owns", async () => {
    const result = await pd.call("Pager.GetTeam", { team_id: "PT00001" });
    expect(result.isError, result.text).toBe(false);
    const team = result.data?.team as Record<string, unknown>;
    expect(team).toMatchObject({
      id: "PT00001",
      name: "Platform",
      default_role: "manager",
      services: [
        { id: "PV00003", name: "Edge Proxy" },
        { id: "PV00004", name: "Kubernetes Control Plane" },
      ],
      escalation_policies: [{ id: "PE00001", name: "Platform Escalation" }],
    });
    const members = team.members as { id: string; role: string; email: string }[];
    expect(members).toHaveLength(9);
    expect(members).toContainEqual({
      id: "PU00000",
      name: "Avery Quinn",
      email: "avery.quinn@acme.example",
      role: "responder",
    });
    expect(members.filter((m) => m.role === "manager")).toHaveLength(1);
    expect(members.filter((m) => m.role === "observer")).toHaveLength(1);
    expect(team).not.toHaveProperty("incomplete");
  });

  it("reads members and linked resources from their own endpoints", async () => {
    await pd.call("Pager.GetTeam", { team_id: "PT00001" });
    const paths = pd.requests.map((r) => new URL(r.url).pathname).sort();
    expect(paths).toEqual(["/escalation_policies", "/services", "/teams/PT00001", "/teams/PT00001/members"]);
    expect(pd.queries("/teams/PT00001")[0]?.toString()).toBe("");
    expect(pd.queries("/teams/PT00001/members")[0]?.getAll("include[]")).toEqual(["users"]);
    expect(pd.queries("/services")[0]?.getAll("team_ids[]")).toEqual(["PT00001"]);
    expect(pd.queries("/escalation_policies")[0]?.getAll("team_ids[]")).toEqual(["PT00001"]);
  });

  it("reports an unknown team as not_found naming Pager.ListTeams", async () => {
    const result = await pd.call("Pager.GetTeam", { team_id: "PNOTEAM" });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^not_found: GET \/teams\/\{id\}.* failed with HTTP 404: Team Not Found\./);
    expect(result.text).toContain("Pager.ListTeams lists valid ids");
  });
});

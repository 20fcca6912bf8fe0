#!/usr/bin/env node
// Checks the deployment files, which CI cannot run (it has neither a Docker daemon nor a cluster, and
// builds no image): the Dockerfile's shape and its Node line, the release workflow's image job,
// every Kubernetes manifest against the API's schemas, and the compose file against the Compose
// Specification, each with what a team deployment needs.
// Prints one line per check and exits 1 when one fails. Other files can be checked instead:
//   node scripts/check-deploy.mjs [--dockerfile FILE] [--workflow FILE] [--kubernetes DIR] [--compose FILE]
//     [--haproxy FILE] [--prometheus FILE] [--alerts FILE]
// haproxy.cfg is checked with `haproxy -c` where haproxy is installed, and skipped where it is not;
// that it checks replicas on /readyz is checked everywhere. The same goes for Prometheus' scrape
// configuration and alert rules: `promtool check config` and `promtool check rules` where Debian's
// prometheus package is installed (the Prometheus test installs it), what they must hold everywhere.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { Ajv } from "ajv";
import addFormats from "ajv-formats";
import { DockerfileParser } from "dockerfile-ast";
import { parseAllDocuments } from "yaml";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const COMPOSE_SCHEMA = join(ROOT, "scripts/vendor/compose-spec.json");
/** The server's image name in the compose file, the manifests and the release workflow. */
const SERVER_IMAGE = /(^|\/)toolkits-mcp(:|@|$)/;
/** The Node.js line the image runs (the current LTS): every stage builds on the `node` image of it. */
const NODE_LINE = 24;
/** The package whose release publishes the image. */
const SERVER_PACKAGE = "@toolkits/mcp-server";

const { values: paths } = parseArgs({
  options: {
    dockerfile: { type: "string", default: join(ROOT, "Dockerfile") },
    workflow: { type: "string", default: join(ROOT, ".github/workflows/release.yml") },
    ci: { type: "string", default: join(ROOT, ".ci/run") },
    kubernetes: { type: "string", default: join(ROOT, "deploy/kubernetes") },
    compose: { type: "string", default: join(ROOT, "deploy/compose.yaml") },
    haproxy: { type: "string", default: join(ROOT, "deploy/haproxy.cfg") },
    prometheus: { type: "string", default: join(ROOT, "deploy/prometheus.yml") },
    alerts: { type: "string", default: join(ROOT, "deploy/alerts.yml") },
  },
});

let failures = 0;

/** Prints one check's line: `problem` undefined means it passed, and `detail` says what was seen. */
function report(name, problem, detail = "") {
  if (problem) failures++;
  console.log(
    `${problem ? "FAIL" : "ok  "}  ${name}${problem ? `: ${problem}` : detail ? ` (${detail})` : ""}`,
  );
}

/** Runs `check`, which returns a problem or undefined (or [problem, detail]); a throw is a failure too. */
async function run(name, check) {
  try {
    const result = await check();
    const [problem, detail] = Array.isArray(result) ? result : [result];
    report(name, problem, detail);
  } catch (error) {
    report(name, error instanceof Error ? error.message : String(error));
  }
}

/** A path as printed: relative to the repository when inside it. */
const shown = (file) => {
  const inside = relative(ROOT, file);
  return inside && !inside.startsWith("..") ? inside : file;
};

// --- Dockerfile -------------------------------------------------------------------------------

const KEYWORDS = new Set(
  "ADD ARG CMD COPY ENTRYPOINT ENV EXPOSE FROM HEALTHCHECK LABEL MAINTAINER ONBUILD RUN SHELL STOPSIGNAL USER VOLUME WORKDIR".split(
    " ",
  ),
);

/** The instructions of each build stage, in order. */
function stages(dockerfile) {
  const found = [];
  for (const instruction of dockerfile.getInstructions()) {
    if (instruction.getKeyword() === "FROM") found.push([]);
    found.at(-1)?.push(instruction);
  }
  return found;
}

async function checkDockerfile(file) {
  const name = shown(file);
  const dockerfile = DockerfileParser.parse(readFileSync(file, "utf8"));
  const all = stages(dockerfile);
  const final = all.at(-1) ?? [];
  const last = (keyword) => final.filter((instruction) => instruction.getKeyword() === keyword).at(-1);
  await run(`${name}: every instruction is a Dockerfile instruction`, () => {
    const unknown = dockerfile.getInstructions().filter((i) => !KEYWORDS.has(i.getKeyword()));
    return unknown.length
      ? `unknown ${unknown.map((i) => `${i.getKeyword()} (line ${i.getRange().start.line + 1})`).join(", ")}`
      : undefined;
  });
  await run(`${name}: multi-stage build`, () => [
    all.length >= 2 ? undefined : `${all.length} stage(s); build in one stage and run in another`,
    `${all.length} stages`,
  ]);
  await run(`${name}: the final stage runs as a numeric non-root user`, () => {
    const user = last("USER");
    if (!user) return "no USER: the server would run as root";
    const who = user.getArgumentsContent()?.split(":")[0] ?? "";
    // Kubernetes' runAsNonRoot can only verify a numeric user.
    if (who === "root" || who === "0") return `USER ${who} is root`;
    return /^\d+$/.test(who)
      ? [undefined, `USER ${who}`]
      : `USER ${who} is not numeric (runAsNonRoot needs a uid)`;
  });
  await run(`${name}: the final stage has a HEALTHCHECK`, () => {
    const check = last("HEALTHCHECK");
    if (!check) return "no HEALTHCHECK";
    return /^NONE\b/i.test(check.getArgumentsContent() ?? "") ? "HEALTHCHECK NONE" : undefined;
  });
  await run(`${name}: every stage builds on Node ${NODE_LINE} (the node image)`, () => {
    const bases = baseImages(dockerfile);
    const off = bases.filter((from) => !isNodeLine(from));
    if (!bases.length) return "no FROM";
    return off.length
      ? `${off.map((from) => `${from.getImage()} (line ${from.getRange().start.line + 1})`).join(", ")}: build on node:${NODE_LINE}-bookworm-slim`
      : [undefined, bases.map((from) => from.getImage()).join(", ")];
  });
  await run(`${name}: the image's Node line is one the test suites run on (${shown(paths.ci)})`, () => {
    // CI runs the suites on the Node it starts with (20), then on the lines scripts/test-node.mjs names.
    const lines = /test-node\.mjs((?:\s+\d+)+)/
      .exec(readFileSync(paths.ci, "utf8"))?.[1]
      ?.trim()
      .split(/\s+/);
    return lines?.includes(String(NODE_LINE))
      ? [undefined, `test-node.mjs ${lines.join(" ")}`]
      : `scripts/test-node.mjs runs the suites on ${lines?.join(", ") ?? "no line"}, not on ${NODE_LINE}`;
  });
  await run(`${name}: the final stage has an exec-form ENTRYPOINT or CMD`, () => {
    const start = last("ENTRYPOINT") ?? last("CMD");
    if (!start) return "neither ENTRYPOINT nor CMD";
    // Shell form puts /bin/sh in front of the server, and SIGTERM would not reach it to drain.
    return start.getJSONStrings().length ? undefined : `${start.getKeyword()} in shell form: use ["node", …]`;
  });
}

/** Each stage's FROM that names an image (one naming an earlier stage builds on that stage instead). */
function baseImages(dockerfile) {
  const stagesSoFar = new Set();
  const bases = [];
  for (const from of dockerfile.getFROMs()) {
    if (!stagesSoFar.has(from.getImageName())) bases.push(from);
    if (from.getBuildStage()) stagesSoFar.add(from.getBuildStage());
  }
  return bases;
}

/** Whether a FROM is the official `node` image of NODE_LINE (`node:24`, `node:24.1-bookworm-slim`, …). */
function isNodeLine(from) {
  const official = /^(docker\.io\/)?(library\/)?node$/.test(from.getImageName() ?? "");
  return official && new RegExp(`^${NODE_LINE}([.-]|$)`).test(from.getImageTag() ?? "");
}

// --- Release workflow: the image job ------------------------------------------------------------

/** The steps of `job` using the action `name` (`docker/build-push-action`), any version. */
const stepsUsing = (job, name) => (job?.steps ?? []).filter((step) => step.uses?.split("@")[0] === name);
const isTrue = (value) => value === true || value === "true";

/**
 * What the release workflow's image job lacks: it must run after the job whose changesets step
 * published SERVER_PACKAGE (reading the step's `publishedPackages`), and only then; log in to
 * ghcr.io with the workflow's token; build this Dockerfile and push it as toolkits-mcp, tagged by
 * docker/metadata-action, with provenance (mode=max) and an SBOM; and have the permissions that
 * takes (packages: write, and id-token and attestations: write for a provenance attestation).
 */
function imageJobProblems(workflow) {
  const jobs = Object.entries(workflow?.jobs ?? {});
  const [releaseName, release] = jobs.find(([, job]) => stepsUsing(job, "changesets/action").length) ?? [];
  if (!release) return ["no job runs changesets/action"];
  const changesets = stepsUsing(release, "changesets/action")[0];
  const images = jobs.filter(([, job]) => stepsUsing(job, "docker/build-push-action").length);
  if (images.length !== 1) return [`${images.length} jobs run docker/build-push-action; expected 1`];
  const [imageName, image] = images[0];
  const needs = [image.needs ?? []].flat();
  const text = JSON.stringify(release);
  const [build] = stepsUsing(image, "docker/build-push-action");
  const [login] = stepsUsing(image, "docker/login-action");
  const [meta] = stepsUsing(image, "docker/metadata-action");
  const [attest] = stepsUsing(image, "actions/attest-build-provenance");
  const permissions = image.permissions ?? workflow.permissions ?? {};
  const problems = [
    !changesets.id && "the changesets step has no id, so nothing can read what it published",
    !(text.includes(`steps.${changesets.id}.outputs.publishedPackages`) && text.includes(SERVER_PACKAGE)) &&
      `job ${releaseName} does not read ${SERVER_PACKAGE} from the changesets step's publishedPackages`,
    !needs.includes(releaseName) && `job ${imageName} does not need ${releaseName}`,
    !String(image.if ?? "").includes(`needs.${releaseName}.outputs.`) &&
      `job ${imageName} does not run only when ${releaseName} published the server (its \`if\`)`,
    !(
      login?.with?.registry === "ghcr.io" &&
      /\$\{\{\s*(secrets\.GITHUB_TOKEN|github\.token)\s*\}\}/.test(login?.with?.password ?? "")
    ) && "no docker/login-action to ghcr.io with the GITHUB_TOKEN",
    // Named in the metadata step's `images`, or in a step making the name (lower case) for it.
    !/ghcr\.io\/\S*?\/toolkits-mcp\b/.test(JSON.stringify(image.steps)) &&
      "the image is not named ghcr.io/<owner>/toolkits-mcp",
    !(meta?.id && String(build.with?.tags ?? "").includes(`steps.${meta.id}.outputs.tags`)) &&
      "docker/build-push-action does not take its tags from docker/metadata-action",
    ![undefined, "."].includes(build.with?.context) && `builds ${build.with?.context}, not the repository`,
    build.with?.file !== undefined &&
      !/^(\.\/)?Dockerfile$/.test(build.with.file) &&
      `builds ${build.with.file}`,
    !isTrue(build.with?.push) && "docker/build-push-action does not push",
    !/\bmode=max\b/.test(String(build.with?.provenance ?? "")) && "no provenance: mode=max",
    !(isTrue(build.with?.sbom) || /\bgenerator=/.test(String(build.with?.sbom ?? ""))) && "no sbom",
    permissions.packages !== "write" && "permissions lack packages: write",
    attest && permissions["id-token"] !== "write" && "permissions lack id-token: write (the attestation)",
    attest && permissions.attestations !== "write" && "permissions lack attestations: write",
    attest &&
      !(
        build.id && String(attest.with?.["subject-digest"] ?? "").includes(`steps.${build.id}.outputs.digest`)
      ) &&
      "the provenance attestation is not of the pushed image's digest",
  ];
  return problems.filter(Boolean);
}

async function checkWorkflow(file) {
  const name = shown(file);
  let workflow;
  await run(`${name}: parses as YAML`, () => {
    const docs = documents(file);
    if (docs.length !== 1) return `${docs.length} documents; expected 1`;
    workflow = docs[0];
  });
  await run(
    `${name}: an image job pushes toolkits-mcp to ghcr.io, with provenance (mode=max) and an SBOM, when ${SERVER_PACKAGE} is published`,
    () => {
      const problems = imageJobProblems(workflow);
      return problems.length ? problems.join("; ") : undefined;
    },
  );
}

// --- Kubernetes -------------------------------------------------------------------------------

/** Every YAML file under `dir`, recursively. */
function yamlFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

/** The YAML documents of `file` as plain objects (empty ones left out). @throws on a syntax error. */
function documents(file) {
  const docs = parseAllDocuments(readFileSync(file, "utf8"));
  for (const doc of docs) if (doc.errors.length) throw new Error(doc.errors[0].message);
  return docs.map((doc) => doc.toJS()).filter((value) => value != null);
}

/** The kubernetes-models class for `apiVersion` and `kind`. @throws when it knows neither. */
async function modelClass(apiVersion, kind) {
  // Only API group/version shapes become module paths.
  if (typeof apiVersion !== "string" || !/^([a-z0-9.-]+\/)?v\d+((alpha|beta)\d+)?$/.test(apiVersion))
    throw new Error(`apiVersion ${JSON.stringify(apiVersion)} is not a Kubernetes API version`);
  let module;
  try {
    module = await import(`kubernetes-models/${apiVersion}`);
  } catch {
    throw new Error(`unknown apiVersion ${apiVersion}`);
  }
  const Model = typeof kind === "string" && /^[A-Z]\w*$/.test(kind) ? module[kind] : undefined;
  if (typeof Model !== "function") throw new Error(`unknown kind ${kind} in ${apiVersion}`);
  return Model;
}

const isKustomization = (doc) => /^kustomize\.config\.k8s\.io\//.test(doc.apiVersion ?? "");

/**
 * What the team deployment needs of the server's Deployment; a list of problems. `settings` are the
 * ConfigMaps' data, where MCP_METRICS_PORT says which port serves the metrics.
 */
function serverDeploymentProblems(deployment, settings) {
  const spec = deployment.spec?.template?.spec ?? {};
  const container = spec.containers?.find((c) => SERVER_IMAGE.test(c.image ?? ""));
  if (!container) return ["no container runs the toolkits-mcp image"];
  const probes = (probe, path) => probe?.httpGet?.path === path;
  const nonRoot = container.securityContext?.runAsNonRoot ?? spec.securityContext?.runAsNonRoot;
  return [
    (deployment.spec?.replicas ?? 1) < 2 && `${deployment.spec?.replicas ?? 1} replica(s), fewer than 2`,
    // Readiness follows the store; liveness must not, or a Redis outage restarts every pod.
    !probes(container.readinessProbe, "/readyz") && "no readiness probe on /readyz",
    !probes(container.livenessProbe, "/healthz") && "no liveness probe on /healthz",
    nonRoot !== true && "runAsNonRoot is not true",
    metricsPortProblem(deployment, container, settings),
  ].filter(Boolean);
}

/** The metrics listener a Prometheus scrapes: set, a named container port, and the pods marked for it. */
function metricsPortProblem(deployment, container, settings) {
  const port = Number(settings.MCP_METRICS_PORT);
  if (!port) return "no ConfigMap sets MCP_METRICS_PORT, so no pod serves metrics";
  if (settings.MCP_METRICS_HOST !== "0.0.0.0")
    return "MCP_METRICS_HOST is not 0.0.0.0: the metrics listener would answer only inside its pod";
  const named = container.ports?.find((entry) => entry.containerPort === port);
  if (named?.name !== "metrics") return `no container port named metrics is ${port} (MCP_METRICS_PORT)`;
  const marked = deployment.spec?.template?.metadata?.annotations?.["prometheus.io/port"];
  return marked === String(port)
    ? undefined
    : `the pods' prometheus.io/port is ${marked ?? "unset"}, not ${port}`;
}

async function checkKubernetes(dir) {
  const files = yamlFiles(dir);
  const deployments = [];
  const settings = {};
  await run(`${shown(dir)}: YAML manifests present`, () => [
    files.length ? undefined : "no .yaml files",
    `${files.length} files`,
  ]);
  for (const file of files) {
    let docs = [];
    await run(`${shown(file)}: parses as YAML`, () => {
      docs = documents(file);
      return docs.length ? undefined : "no documents";
    });
    for (const doc of docs) {
      if (isKustomization(doc)) {
        await run(`${shown(file)}: Kustomization lists every manifest`, () =>
          kustomizationProblem(file, doc, files),
        );
        continue;
      }
      const label = `${shown(file)}: ${doc.kind ?? "?"} ${doc.metadata?.name ?? "(no name)"} is valid`;
      if (doc.kind === "Deployment") deployments.push(doc);
      if (doc.kind === "ConfigMap") Object.assign(settings, doc.data);
      await run(label, async () => {
        const Model = await modelClass(doc.apiVersion, doc.kind);
        new Model(doc).validate();
      });
    }
  }
  await run(
    `${shown(dir)}: the server Deployment (≥2 replicas, /readyz, /healthz, non-root, metrics port)`,
    () => {
      const server = deployments.filter((d) =>
        d.spec?.template?.spec?.containers?.some((c) => SERVER_IMAGE.test(c.image ?? "")),
      );
      if (server.length !== 1) return `${server.length} Deployments run the toolkits-mcp image; expected 1`;
      const problems = serverDeploymentProblems(server[0], settings);
      return problems.length ? problems.join("; ") : [undefined, `${server[0].spec.replicas} replicas`];
    },
  );
}

/** Whether `kubectl apply -k` would apply every manifest: each listed resource exists, each file is listed. */
function kustomizationProblem(file, doc, files) {
  const base = dirname(file);
  const listed = (doc.resources ?? []).map((resource) => resolve(base, resource));
  const missing = listed.filter((path) => !existsSync(path));
  const unlisted = files.filter(
    (path) => path !== file && !listed.some((entry) => path === entry || path.startsWith(`${entry}/`)),
  );
  const problems = [
    missing.length && `lists missing ${missing.map(shown).join(", ")}`,
    unlisted.length && `does not list ${unlisted.map(shown).join(", ")}`,
  ].filter(Boolean);
  return problems.length ? problems.join("; ") : undefined;
}

// --- Compose ----------------------------------------------------------------------------------

function composeValidator() {
  const schema = JSON.parse(readFileSync(COMPOSE_SCHEMA, "utf8"));
  // The schema is draft-07 (Ajv's default) but names its meta-schema by an https URL, which Ajv
  // knows by http only. Union types and loose object typing are the schema's own style.
  const ajv = new Ajv({ allErrors: true, allowUnionTypes: true, strictTypes: false });
  addFormats(ajv);
  const draft07 = ajv.getSchema("http://json-schema.org/draft-07/schema")?.schema;
  if (schema.$schema && !ajv.getSchema(schema.$schema))
    ajv.addMetaSchema({ ...draft07, $id: schema.$schema });
  return ajv.compile(schema);
}

/** A service's environment as an object, from either the list or the mapping form. */
function environmentOf(service) {
  const env = service.environment ?? {};
  if (!Array.isArray(env)) return env;
  return Object.fromEntries(env.map((entry) => [entry.split("=")[0], entry.split("=").slice(1).join("=")]));
}

const isServer = (service) =>
  SERVER_IMAGE.test(service.image ?? "") || (service.build !== undefined && !service.image);
const replicasOf = (service) => service.deploy?.replicas ?? service.scale ?? 1;
const LOAD_BALANCERS = /(^|\/)(haproxy|nginx|traefik|envoy|caddy)(:|@|$)/;

async function checkCompose(file) {
  const name = shown(file);
  let compose = {};
  await run(`${name}: parses as YAML`, () => {
    const docs = documents(file);
    if (docs.length !== 1) return `${docs.length} documents; expected 1`;
    compose = docs[0];
  });
  await run(`${name}: valid against the Compose Specification`, () => {
    const validate = composeValidator();
    if (validate(compose)) return undefined;
    return validate.errors
      .slice(0, 5)
      .map((error) => `${error.instancePath || "/"} ${error.message}`)
      .join("; ");
  });
  const services = Object.entries(compose.services ?? {});
  await run(`${name}: ≥2 server replicas on the Redis store, in per-user mode`, () => {
    const servers = services.filter(([, service]) => isServer(service));
    const replicas = servers.reduce((sum, [, service]) => sum + replicasOf(service), 0);
    if (replicas < 2) return `${replicas} server replica(s)`;
    const notShared = servers
      .filter(([, service]) => {
        const env = environmentOf(service);
        return !/^rediss?:\/\//.test(env.MCP_STORE_URL ?? "") || env.MCP_CREDENTIALS !== "per-user";
      })
      .map(([key]) => key);
    return notShared.length
      ? `${notShared.join(", ")}: MCP_STORE_URL must be redis:// and MCP_CREDENTIALS per-user`
      : [undefined, `${replicas} replicas`];
  });
  await run(`${name}: a Redis service`, () => {
    const redis = services.filter(([, service]) => /(^|\/)redis(:|@|$)/.test(service.image ?? ""));
    return redis.length ? [undefined, redis.map(([key]) => key).join(", ")] : "no service runs a redis image";
  });
  await run(`${name}: a load balancer publishing a port`, () => {
    const balancers = services.filter(
      ([, service]) => LOAD_BALANCERS.test(service.image ?? "") && service.ports?.length,
    );
    if (!balancers.length) return "no haproxy, nginx, traefik, envoy or caddy service with ports";
    const published = services.filter(([, service]) => isServer(service) && service.ports?.length);
    return published.length
      ? `${published.map(([key]) => key).join(", ")} publish ports themselves, bypassing the load balancer`
      : [undefined, balancers.map(([key]) => key).join(", ")];
  });
  await run(`${name}: bind-mounted files exist`, () => {
    const sources = services.flatMap(([, service]) =>
      (service.volumes ?? [])
        .map((volume) => (typeof volume === "string" ? volume.split(":")[0] : volume.source))
        .filter((source) => /^\.\.?\//.test(source ?? "")),
    );
    const missing = sources.filter((source) => !existsSync(resolve(dirname(file), source)));
    return missing.length ? `missing ${missing.join(", ")}` : [undefined, sources.join(", ") || "none"];
  });
}

/** `haproxy -c` on the load balancer's configuration, where haproxy is installed (skipped otherwise). */
function checkHaproxy(file) {
  // A replica whose store is out of reach must leave the rotation: the checks ask for readiness.
  const checked = /^\s*http-check\s+send\b.*\buri\s+(\S+)/m.exec(readFileSync(file, "utf8"))?.[1];
  report(
    `${shown(file)}: replicas are checked on /readyz`,
    checked === "/readyz" ? undefined : `http-check asks for ${checked ?? "nothing"}`,
  );
  const name = `${shown(file)}: haproxy -c accepts it`;
  const found = spawnSync("haproxy", ["-c", "-f", file], { encoding: "utf8" });
  if (found.error?.code === "ENOENT") return console.log(`skip  ${name}: haproxy is not installed`);
  const lines = `${found.stderr}${found.stdout}`.split("\n").filter((line) => line.trim());
  const alert = lines.find((line) => line.includes("ALERT")) ?? lines.at(-1);
  report(name, found.status === 0 ? undefined : (alert ?? `exit ${found.status}`));
}

// --- Prometheus -------------------------------------------------------------------------------

/**
 * The metric families the alert rules must watch, as the server exports them (`--metrics-port`):
 * the error rate, upstream 429s and 5xx, refused sign-ins, the store out of reach, latency.
 */
const WATCHED = [
  ["the MCP error rate", /mcp_server_operation_duration_count\{[^}]*error_type/],
  ["upstream 429s", /http_client_request_duration_count\{[^}]*"429"/],
  ["upstream 5xx", /http_client_request_duration_count\{[^}]*"5\.\."/],
  ["sign-in refusals", /toolkits_oauth_steps_total\{[^}]*refused/],
  ["the store unavailable", /db_client_operation_duration_count\{[^}]*StoreUnavailable/],
  ["latency", /histogram_quantile\(.*mcp_server_operation_duration_bucket/s],
];

/** `promtool <args>` where promtool is installed; skipped (one line) where it is not. */
function promtool(name, args) {
  const found = spawnSync("promtool", args, { encoding: "utf8" });
  if (found.error?.code === "ENOENT") return console.log(`skip  ${name}: promtool is not installed`);
  const lines = `${found.stderr}${found.stdout}`.split("\n").filter((line) => line.trim());
  const failure = lines.find((line) => /FAILED|error/i.test(line)) ?? lines.at(-1);
  report(name, found.status === 0 ? undefined : (failure ?? `exit ${found.status}`));
}

async function checkPrometheus(configFile, alertsFile, composeFile) {
  let config = {};
  await run(`${shown(configFile)}: parses as YAML`, () => {
    [config] = documents(configFile);
  });
  await run(`${shown(configFile)}: loads ${shown(alertsFile)}`, () => {
    const files = (config.rule_files ?? []).map((file) => resolve(dirname(configFile), file));
    return files.includes(alertsFile) ? undefined : `rule_files ${JSON.stringify(config.rule_files ?? [])}`;
  });
  await run(`${shown(configFile)}: scrapes the replicas' metrics port (compose's MCP_METRICS_PORT)`, () => {
    const [compose] = documents(composeFile);
    const ports = Object.values(compose.services ?? {})
      .filter(isServer)
      .map((service) => environmentOf(service).MCP_METRICS_PORT);
    if (!ports.length || ports.some((port) => !port)) return "a server service sets no MCP_METRICS_PORT";
    const scraped = (config.scrape_configs ?? []).flatMap((job) => [
      ...(job.dns_sd_configs ?? []).map((sd) => String(sd.port)),
      ...(job.static_configs ?? []).flatMap((group) =>
        group.targets.map((target) => target.split(":").at(-1)),
      ),
    ]);
    const missing = ports.filter((port) => !scraped.includes(String(port)));
    return missing.length ? `nothing scrapes port ${missing.join(", ")}` : [undefined, `port ${ports[0]}`];
  });
  await run(`${shown(alertsFile)}: every rule alerts, with a summary and a description`, () => {
    const [rules] = documents(alertsFile);
    const all = (rules.groups ?? []).flatMap((group) => group.rules ?? []);
    const bare = all.filter(
      (rule) => !rule.alert || !rule.annotations?.summary || !rule.annotations?.description,
    );
    if (bare.length) return `${bare.map((rule) => rule.alert ?? rule.record ?? "?").join(", ")} lack one`;
    const exprs = all.map((rule) => String(rule.expr)).join("\n");
    const unwatched = WATCHED.filter(([, pattern]) => !pattern.test(exprs)).map(([what]) => what);
    return unwatched.length ? `no rule watches ${unwatched.join(", ")}` : [undefined, `${all.length} alerts`];
  });
  await run(`${shown(composeFile)}: a Prometheus service with the scrape configuration and the rules`, () => {
    const [compose] = documents(composeFile);
    const service = Object.values(compose.services ?? {}).find((s) =>
      /(^|\/)prometheus(:|@|$)/.test(s.image ?? ""),
    );
    if (!service) return "no service runs a prometheus image";
    const mounted = (service.volumes ?? []).map((volume) =>
      resolve(dirname(composeFile), typeof volume === "string" ? volume.split(":")[0] : volume.source),
    );
    const unmounted = [configFile, alertsFile].filter((file) => !mounted.includes(file)).map(shown);
    return unmounted.length ? `does not mount ${unmounted.join(", ")}` : undefined;
  });
  promtool(`${shown(configFile)}: promtool check config accepts it`, ["check", "config", configFile]);
  promtool(`${shown(alertsFile)}: promtool check rules accepts it`, ["check", "rules", alertsFile]);
}

await checkDockerfile(resolve(paths.dockerfile));
await checkWorkflow(resolve(paths.workflow));
await checkKubernetes(resolve(paths.kubernetes));
await checkCompose(resolve(paths.compose));
checkHaproxy(resolve(paths.haproxy));
await checkPrometheus(resolve(paths.prometheus), resolve(paths.alerts), resolve(paths.compose));
console.log(`check-deploy: ${failures ? `${failures} failed` : "all passed"}`);
if (failures) process.exit(1);

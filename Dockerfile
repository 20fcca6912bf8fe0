# toolkits-mcp as a container image. Build from the repository root, with BuildKit (Docker's builder):
#   docker build -t toolkits-mcp .
# The default command serves stdio (run it with -i); `--transport http` serves Streamable HTTP on
# 0.0.0.0:8080 (MCP_HOST and MCP_PORT below), where authentication is mandatory. The README's
# "Deploying for a team" section covers per-user mode, compose and Kubernetes.

# Both stages run Node 24, the current LTS line (scripts/check-deploy.mjs checks it); the server
# itself supports Node 20.19 and later, and its tests run on 20, 22 and 24.
#
# Build: the whole workspace, then the server alone with its one runtime dependency (`open`; the
# rest is bundled into dist/), installed from the lockfile. It runs on the builder's own platform
# (what it makes is JavaScript alone), so an image for another platform needs no emulation: the
# run stage below only copies files.
FROM --platform=$BUILDPLATFORM node:24-bookworm-slim AS build
ENV CI=1 TURBO_TELEMETRY_DISABLED=1
RUN npm i -g pnpm@10.34.8
WORKDIR /src
# Dependencies first, from the lockfile alone, so that a source change reuses this layer.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
RUN pnpm install --frozen-lockfile --offline
RUN pnpm build
# --legacy: the workspace does not inject its packages, and the server needs none of them at run time.
RUN pnpm --filter @toolkits/mcp-server deploy --legacy --prod /out

# Run: Node and the deployed server, as the image's unprivileged `node` user (uid 1000).
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOME=/home/node \
    MCP_HOST=0.0.0.0 \
    MCP_PORT=8080
WORKDIR /app
COPY --from=build /out /app
COPY deploy/healthcheck.mjs /app/healthcheck.mjs
USER 1000:1000
EXPOSE 8080
# Probes GET /healthz when the server was started with --transport http (or MCP_TRANSPORT=http);
# over stdio there is nothing listening and the check passes.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD ["node", "/app/healthcheck.mjs"]
# SIGTERM drains (up to --shutdown-grace-ms, 15 s by default): stop with a longer timeout than that.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/app/dist/cli.js"]
CMD []

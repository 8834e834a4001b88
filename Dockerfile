# syntax=docker/dockerfile:1
# Production image of the Commerce API: compiled JavaScript (dist/), production dependencies only, a non-root user.
# Build:  docker build -t commerce-api .
# Run:    docker run -e DATABASE_URL=... -e MASTER_KEY=... -p 3000:3000 commerce-api
# See docs/manual/14-production-deployment.md and deploy/compose.yaml.

# ---- build: every dependency, then `npm run build` (esbuild bundle dist/cli.js, migrations, client tarballs) ----
FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
# --ignore-scripts: `prepare` (npm run build) needs the sources, copied below; esbuild's own install script is run
# explicitly (it fetches nothing: the binary comes in its platform package).
RUN npm ci --no-audit --no-fund --ignore-scripts && npm rebuild esbuild
COPY . .
RUN npm run build

# ---- runtime: production dependencies only, the built dist/, the documentation the server serves ----
FROM node:22-bookworm-slim AS runtime
ENV HOST=0.0.0.0 \
    PORT=3000 \
    DATA_DIR=/data \
    LOG_FORMAT=json \
    MALLOC_MMAP_THRESHOLD_=131072
# MALLOC_MMAP_THRESHOLD_ (glibc, read when a process starts): blocks of 128 KiB and more are mapped and unmapped on
# their own, as glibc does until its threshold adapts upwards; left adaptive, a long-running worker's RSS kept growing
# with its heap flat (docs/manual/13-performance.md, round 4; docs/manual/14-production-deployment.md, "Memory").
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would run the build, whose tools (esbuild, tsc) are development dependencies.
RUN npm ci --omit=dev --no-audit --no-fund --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY docs ./docs
# The embedded database (when DATABASE_URL is unset) and its generated master key live in /data, owned by `node`
# and closed to everyone else (the service also closes it at start, with a warning, if it finds it open).
RUN mkdir -p /data && chown node:node /data && chmod 700 /data
VOLUME ["/data"]
USER node
EXPOSE 3000
# /ready: the database answers and the process is not draining. No curl in the slim image: node's fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself (it drains: /ready 503, DRAIN_DELAY_MS, in-flight requests).
STOPSIGNAL SIGTERM
CMD ["node", "bin/commerce.js", "start"]

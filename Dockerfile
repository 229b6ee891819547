# syntax=docker/dockerfile:1
# The clusterpedia image: the esbuild bundle (dist/clusterpedia.mjs) on a slim Node runtime.
#   docker build -t ghcr.io/clusterpedia-ts/clusterpedia:0.1.0 .
# Every stage uses the same Node major on Debian bookworm, so the native better-sqlite3 addon compiled in the
# build stage matches the runtime's Node ABI and glibc.
ARG NODE_VERSION=22

# Build: full image (python3, make, g++) because better-sqlite3 compiles natively when no prebuilt binary fits.
FROM node:${NODE_VERSION}-bookworm AS build
WORKDIR /src
# Manifests first: the dependency layer is reused until package.json or the lock changes.
COPY package.json package-lock.json ./
RUN npm ci
COPY build.mjs tsconfig.json ./
COPY src ./src
RUN npm run build

# Production dependencies: the bundle contains everything except better-sqlite3 (a native addon, external to
# the bundle), which must be resolvable from /app/node_modules at run time. Pruning the build stage's tree
# keeps the addon already compiled there instead of compiling it a second time.
FROM build AS prod-deps
RUN npm prune --omit=dev

# Runtime: no compilers, no dev dependencies, no sources.
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json ./
COPY bin ./bin
COPY --from=prod-deps /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The image's `node` user, by number so Kubernetes can verify runAsNonRoot. The files above stay owned by
# root: the process can read, not modify, its own code.
USER 1000:1000
# 8443: HTTPS API (apiserver, binding); 8081: synchro metrics and probes.
EXPOSE 8443 8081
# bin/clusterpedia runs the bundle with the node flags of the role it is given.
ENTRYPOINT ["/app/bin/clusterpedia"]

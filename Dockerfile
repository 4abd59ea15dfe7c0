# syntax=docker/dockerfile:1
# The production shape: one image, two targets (`api`, `worker`), plus `migrate` for the schema.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json tsconfig.production.json prisma.config.ts ./
COPY prisma prisma
COPY scripts scripts
COPY src src
# Only the production entry points and what they load are compiled (tsconfig.production.json): npm start's
# own code (src/stack: the simulator, the CRM fakes, the embedded servers) never reaches dist/.
# The locked Node (node-linux-*, which npm run used for the build) stays out: the image's own Node 24 runs the processes.
RUN npm run build:production && npm prune --omit=dev --no-audit --no-fund && rm -rf node_modules/node-linux-* node_modules/.bin/node

FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/prisma prisma
COPY --from=build /app/dist dist
USER node

FROM runtime AS migrate
CMD ["node", "dist/main/migrate.js", "deploy"]

FROM runtime AS worker
EXPOSE 9464
HEALTHCHECK --interval=15s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:9464/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main/worker.js"]

FROM runtime AS api
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s CMD ["node", "-e", "fetch('http://127.0.0.1:3000/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main/api.js"]

# App image for both the API (`npm run api`) and the worker (`npm run worker`).
# TypeScript runs directly through tsx, which is a runtime dependency, so there is no build step.
# No secrets are baked in: RVS_SECRET_KEY, DATABASE_URL etc. come from the environment at run time.
FROM node:20.20.2-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false

WORKDIR /app

# Dependencies first so this layer is cached until the lockfile changes.
# Installed as root and left root-owned: the runtime user can read but not modify the code.
COPY package.json package-lock.json ./
RUN npm ci --omit=dev && npm cache clean --force

COPY tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities

# RVS_DATA_DIR is only written when RVS_SECRET_KEY or DATABASE_URL is unset (single-machine mode);
# give the runtime user a writable place for it anyway.
RUN mkdir -p /app/.data && chown node:node /app/.data
ENV RVS_DATA_DIR=/app/.data
# The API listens on loopback unless told otherwise; in a container it must take the container's
# interfaces, or nothing outside reaches it. Publishing the port is the host's decision.
ENV HOST=0.0.0.0

USER node

EXPOSE 3000

# The compose file chooses the role: `npm run api` or `npm run worker`.
CMD ["npm", "run", "api"]

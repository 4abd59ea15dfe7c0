import { defineConfig } from 'prisma/config';

// Only the schema location is needed: migrations run through src/db/migrate.ts (WebAssembly engine).
export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
});

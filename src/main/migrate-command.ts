import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { loadConfig } from '../config/index';
import { MIGRATIONS_DIR, SCHEMA_PATH } from '../paths';
import type { OpenDatabase } from '../config/database';
import { applyMigrations, diffDatabaseToSchema, diffMigrationsToSchema } from '../db/migrate';

const usage = `usage:
  npm run db:migrate                 apply prisma/migrations to DATABASE_URL (or the embedded database)
  npm run db:migration -- <name>     write prisma/migrations/<timestamp>_<name> from the schema diff
  npm run db:check                   fail when the migrations and schema.prisma differ
DATABASE_URL selects the database; without it the embedded one under DATA_DIR (default .data) is used.`;

function timestamp(): string {
  return new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** `deploy`, `create <name>` or `check`, on the database `openDatabase` finds; the exit code. */
export async function migrateCommand(args: string[], openDatabase: OpenDatabase): Promise<number> {
  const [command, name] = args;
  if (!['deploy', 'create', 'check'].includes(command ?? '') || (command === 'create' && !/^[a-z0-9_]+$/i.test(name ?? ''))) {
    console.error(usage);
    return 2;
  }
  const config = loadConfig();
  const schemaPath = config.PRISMA_SCHEMA_PATH ?? SCHEMA_PATH;
  const database = await openDatabase(config);
  try {
    const applied = await applyMigrations(database.url, schemaPath);
    console.log(applied.length ? `applied: ${applied.join(', ')}` : 'migrations: up to date');
    if (command === 'deploy') return 0;
    const sql = await diffMigrationsToSchema(database.url, schemaPath);
    if (command === 'check') {
      const liveSql = await diffDatabaseToSchema(database.url, schemaPath);
      if (!sql && !liveSql) {
        console.log('no drift: the migrations build exactly what schema.prisma describes');
        return 0;
      }
      console.error(`schema.prisma and prisma/migrations differ; missing SQL:\n${sql || liveSql}`);
      return 1;
    }
    if (!sql) {
      console.log('schema.prisma matches the migrations: nothing to write');
      return 0;
    }
    const dir = join(MIGRATIONS_DIR, `${timestamp()}_${name}`);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'migration.sql'), `${sql}\n`);
    console.log(`wrote ${dir}/migration.sql; apply it with npm run db:migrate`);
    return 0;
  } finally {
    await database.stop();
  }
}

import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MIGRATIONS_DIR, PROJECT_ROOT, SCHEMA_PATH } from '../paths';
import { migrationAdapter } from './migration-adapter';

/*
 * Prisma's migrations run through its schema engine compiled to WebAssembly, because the native
 * engine is downloaded from a host these machines cannot reach. The results are the same as
 * `prisma migrate deploy`: the same SQL files, recorded in `_prisma_migrations`.
 */


type Wasm = typeof import('@prisma/schema-engine-wasm', { with: { 'resolution-mode': 'import' } });
type Engine = Awaited<ReturnType<Wasm['SchemaEngine']['new']>>;

let wasmModule: Promise<Wasm> | undefined;
// Node has WebAssembly; the TypeScript lib without DOM does not declare it.
const webAssembly = (globalThis as unknown as {
  WebAssembly: { instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: { exports: Record<string, unknown> } }> };
}).WebAssembly;
let lastPanic: string | undefined;

function loadWasm(): Promise<Wasm> {
  wasmModule ??= (async () => {
    // The engine reports a Rust panic through this global before it throws.
    (globalThis as { PRISMA_WASM_PANIC_REGISTRY?: unknown }).PRISMA_WASM_PANIC_REGISTRY ??= {
      set_message: (message: string) => {
        lastPanic = message;
      },
    };
    const bindings = require('@prisma/schema-engine-wasm/schema_engine_bg') as Wasm & {
      __wbg_set_wasm(exports: Record<string, unknown>): void;
    };
    const wasmPath = join(require.resolve('@prisma/schema-engine-wasm/schema_engine_bg'), '..', 'schema_engine_bg.wasm');
    const { instance } = await webAssembly.instantiate(await readFile(wasmPath), { './schema_engine_bg.js': bindings });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })();
  return wasmModule;
}

const NO_FILTERS = { externalTables: [], externalEnums: [] };

async function schemaFiles(schemaPath: string) {
  return [{ path: schemaPath, content: await readFile(schemaPath, 'utf8') }];
}

async function withEngine<T>(connectionString: string, schemaPath: string, use: (engine: Engine) => Promise<T>): Promise<T> {
  const { SchemaEngine } = await loadWasm();
  const files = await schemaFiles(schemaPath);
  const adapter = migrationAdapter(connectionString);
  const engine = await SchemaEngine.new(
    { datamodels: files.map((f) => [f.path, f.content] as [string, string]) },
    () => undefined,
    adapter,
  );
  try {
    return await use(engine);
  } catch (error) {
    if (lastPanic) throw new Error(`Prisma schema engine panicked: ${lastPanic}`, { cause: error });
    throw error;
  } finally {
    engine.free();
  }
}

async function migrationsList() {
  const entries = await readdir(MIGRATIONS_DIR, { withFileTypes: true }).catch(() => []);
  const directories = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
  const lockPath = join(MIGRATIONS_DIR, 'migration_lock.toml');
  return {
    baseDir: MIGRATIONS_DIR,
    lockfile: { path: 'migration_lock.toml', content: await readFile(lockPath, 'utf8').catch(() => null) },
    shadowDbInitScript: '',
    migrationDirectories: await Promise.all(
      directories.map(async (name) => ({
        path: name,
        migrationFile: {
          path: 'migration.sql',
          content: await readFile(join(MIGRATIONS_DIR, name, 'migration.sql'), 'utf8')
            .then((value) => ({ tag: 'ok' as const, value }))
            .catch((error: Error) => ({ tag: 'error' as const, value: error.message })),
        },
      })),
    ),
  };
}

/** Applies every pending migration in prisma/migrations; returns the names just applied. */
export async function applyMigrations(connectionString: string, schemaPath = SCHEMA_PATH): Promise<string[]> {
  return withEngine(connectionString, schemaPath, async (engine) => {
    const result = await engine.applyMigrations({ migrationsList: await migrationsList(), filters: NO_FILTERS });
    return result.appliedMigrationNames;
  });
}

/** SQL that takes a database built by prisma/migrations to what schema.prisma describes ('' when none). */
export async function diffMigrationsToSchema(connectionString: string, schemaPath = SCHEMA_PATH): Promise<string> {
  return withEngine(connectionString, schemaPath, async (engine) => {
    const files = await schemaFiles(schemaPath);
    const result = await engine.diff({
      from: { tag: 'migrations', ...(await migrationsList()) },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    });
    return normaliseScript(result.stdout ?? '');
  });
}

/** SQL that would bring the live database at `connectionString` to what schema.prisma describes ('' when none). */
export async function diffDatabaseToSchema(connectionString: string, schemaPath = SCHEMA_PATH): Promise<string> {
  return withEngine(connectionString, schemaPath, async (engine) => {
    const files = await schemaFiles(schemaPath);
    const result = await engine.diff({
      from: { tag: 'schemaDatasource', files, configDir: PROJECT_ROOT },
      to: { tag: 'schemaDatamodel', files },
      script: true,
      exitCode: null,
      filters: NO_FILTERS,
    });
    return normaliseScript(result.stdout ?? '');
  });
}

function normaliseScript(sql: string): string {
  return sql.includes('empty migration') && !/\b(CREATE|ALTER|DROP)\b/.test(sql) ? '' : sql.trim();
}

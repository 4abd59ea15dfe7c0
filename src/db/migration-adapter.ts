import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';

const CHAR_OID = 18;
const TEXT_OID = 25;

/*
 * The schema engine reads PostgreSQL's catalogs, whose `"char"` columns (OID 18) @prisma/adapter-pg
 * 7.10 rejects as an unsupported type ("Column type 'char' could not be deserialized"). They are
 * one-byte strings, so the migration adapter reports them as text. The application never reads
 * such columns and keeps the stock adapter.
 */
function charAsText(res: pg.QueryResult | undefined) {
  for (const field of res?.fields ?? []) if (field.dataTypeID === CHAR_OID) field.dataTypeID = TEXT_OID;
  return res;
}

function reportCharAsText(client: pg.PoolClient): void {
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  (client as { query: unknown }).query = (...args: unknown[]) => {
    const last = args.length - 1;
    if (typeof args[last] === 'function') {
      const callback = args[last] as (error: Error | null, res?: pg.QueryResult) => void;
      args[last] = (error: Error | null, res?: pg.QueryResult) => callback(error, charAsText(res));
    }
    const result = query(...args);
    return result instanceof Promise ? result.then(charAsText) : result;
  };
}

function catalogSafePool(connectionString: string): pg.Pool {
  const pool = new pg.Pool({ connectionString, max: 4 });
  pool.on('connect', reportCharAsText);
  return pool;
}

class MigrationPg extends PrismaPg {
  constructor(private readonly connectionString: string) {
    super(catalogSafePool(connectionString));
  }

  override async connectToShadowDb() {
    const admin = await this.connect();
    const database = `prisma_migrate_shadow_db_${globalThis.crypto.randomUUID()}`;
    await admin.executeScript(`CREATE DATABASE "${database}"`);
    const url = new URL(this.connectionString);
    url.pathname = `/${database}`;
    const shadowPool = catalogSafePool(url.toString());
    const shadow = await new PrismaPg(shadowPool).connect();
    const dispose = shadow.dispose.bind(shadow);
    shadow.dispose = async () => {
      await dispose();
      await shadowPool.end();
      await admin.executeScript(`DROP DATABASE IF EXISTS "${database}"`);
      await admin.dispose();
    };
    return shadow;
  }
}

export function migrationAdapter(connectionString: string) {
  return bindMigrationAwareSqlAdapterFactory(new MigrationPg(connectionString));
}

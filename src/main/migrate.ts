import { configuredDatabase } from '../config/database';
import { exitWithCodeOf } from './exit-code';
import { migrateCommand } from './migrate-command';

/** The deployment's migration job (the image's `migrate` target): on DATABASE_URL only. */
exitWithCodeOf(() => migrateCommand(process.argv.slice(2), configuredDatabase));

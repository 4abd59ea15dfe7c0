import { provideDatabase } from '../stack/database';
import { exitWithCodeOf } from './exit-code';
import { migrateCommand } from './migrate-command';

/** `npm run db:migrate|db:migration|db:check` in a checkout: on DATABASE_URL, else the embedded database under DATA_DIR. */
exitWithCodeOf(() => migrateCommand(process.argv.slice(2), provideDatabase));

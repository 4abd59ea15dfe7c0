import { provideDatabase } from '../stack/database';
import { exitWithCodeOf } from './exit-code';
import { secretsRotateCommand } from './secrets-rotate-command';

/** `npm run secrets:rotate` in a checkout: on DATABASE_URL, else the embedded database under DATA_DIR. */
exitWithCodeOf(() => secretsRotateCommand(provideDatabase));

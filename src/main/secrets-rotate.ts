import { configuredDatabase } from '../config/database';
import { exitWithCodeOf } from './exit-code';
import { secretsRotateCommand } from './secrets-rotate-command';

/** The reseal a deployment's operator runs in the image (`node dist/main/secrets-rotate.js`): on DATABASE_URL only. */
exitWithCodeOf(() => secretsRotateCommand(configuredDatabase));

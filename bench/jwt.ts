import { randomBytes } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { createTokenVerifier } from '../src/auth/bearer-token';

/** Token verification per request: the project's verifier (keys built once) beside jsonwebtoken given the string secret. */
const secret = randomBytes(32).toString('hex');
const token = jwt.sign({}, secret, { algorithm: 'HS256', subject: 'bench-user', expiresIn: '1h' });
const header = `Bearer ${token}`;
const verify = createTokenVerifier({ secret });
const rounds = Number(process.argv[2] ?? 20_000);

function timeUs(run: () => void): number {
  for (let i = 0; i < 1000; i++) run();
  const started = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) run();
  return Number(process.hrtime.bigint() - started) / 1000 / rounds;
}

const baseline = timeUs(() => jwt.verify(token, secret, { algorithms: ['HS256'] }));
const project = timeUs(() => verify(header));
console.log(JSON.stringify({ rounds, baselineStringSecretUs: +baseline.toFixed(1), projectVerifierUs: +project.toFixed(1), ratio: +(project / baseline).toFixed(2) }, null, 2));

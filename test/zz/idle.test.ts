import { readFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { startTestStack } from '../support/stack';
const pid = () => execSync(`pgrep -f "start-dev --port 47200"`).toString().trim().split("\n")[0];
const cpu = (p: string) => { const st = readFileSync(`/proc/${p}/stat`, 'utf8'); const r = st.slice(st.lastIndexOf(')') + 2).split(' '); return (+r[11] + +r[12]) / 100; };
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));
test('idle', async () => {
  const p = pid();
  let c = cpu(p); await wait(20000); console.log('no workers, 20 s:', (cpu(p) - c).toFixed(2));
  const stacks = [await startTestStack(), await startTestStack()];
  await wait(3000);
  c = cpu(p); await wait(20000); console.log('two stacks idle, 20 s:', (cpu(p) - c).toFixed(2));
  for (const s of stacks) await s.stop();
  await wait(2000);
  for (let i = 0; i < 6; i++) { c = cpu(p); await wait(20000); console.log('after stop, 20 s:', (cpu(p) - c).toFixed(2)); }
}, 300000);

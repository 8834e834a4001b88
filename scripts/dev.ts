// `npm run dev [-- args]`: the CLI on the TypeScript sources through tsx (no build step), for development.
import { main } from '../src/cli';

main(process.argv.slice(2).length ? process.argv.slice(2) : ['start']).catch((err) => {
  process.stderr.write(`${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});

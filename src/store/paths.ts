import os from 'node:os';
import path from 'node:path';

/** `$WEBJOBS_HOME`, else the platform's per-user state directory. */
export function webjobsHome(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WEBJOBS_HOME) return path.resolve(env.WEBJOBS_HOME);
  const home = os.homedir();
  switch (process.platform) {
    case 'darwin':
      return path.join(home, 'Library', 'Application Support', 'webjobs');
    case 'win32':
      return path.join(env.LOCALAPPDATA ?? path.join(home, 'AppData', 'Local'), 'webjobs');
    default:
      return path.join(env.XDG_STATE_HOME ?? path.join(home, '.local', 'state'), 'webjobs');
  }
}

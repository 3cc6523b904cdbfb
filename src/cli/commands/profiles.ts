/** `webjobs profiles`: the profiles (--profile NAME) kept on this machine, listed or deleted. */
import { Command } from 'commander';
import { validateProfileName } from '../../api/actions.js';
import { UsageError } from '../../api/errors.js';
import { webjobsHome } from '../../store/paths.js';
import { FileProfiles } from '../../store/profiles.js';

export function profilesCommand(): Command {
  const cmd = new Command('profiles')
    .summary('list or delete the profiles kept by --profile')
    .description(
      "List the browser profiles that --profile NAME keeps in WEBJOBS_HOME (each a page's cookies and local storage, readable by this user only), or delete some. A deleted profile starts afresh the next time it is named.",
    )
    .argument('[action]', 'list (default) or delete')
    .argument('[names...]', 'with delete: the profiles to delete')
    .option('--json', 'print the list as JSON: [{name, savedAt}]')
    .addHelpText('after', '\nExamples:\n  $ webjobs profiles\n  $ webjobs profiles delete shop\n  $ webjobs profiles --json');
  return cmd.action(async (action: string | undefined, names: string[], flags: { json?: boolean }) => {
    const profiles = new FileProfiles(webjobsHome());
    if (action === undefined || action === 'list') {
      if (names.length > 0) throw new UsageError('profiles list takes no names; to delete some: webjobs profiles delete NAME...');
      const list = await profiles.list(undefined);
      if (flags.json) process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
      else for (const { name, savedAt } of list) process.stdout.write(`${name}\t${savedAt}\n`);
      return;
    }
    if (action !== 'delete') throw new UsageError(`profiles: unknown action "${action}" (list or delete)`);
    if (names.length === 0) throw new UsageError('profiles delete needs the names of the profiles to delete');
    for (const name of names) validateProfileName(name, `profile "${name}"`);
    const missing: string[] = [];
    for (const name of names) if (!(await profiles.delete(undefined, name))) missing.push(name);
    if (missing.length > 0) throw new UsageError(`no profile named ${missing.join(', ')} (webjobs profiles lists them)`);
  });
}

// The command that serves another folder, as a person would paste it into a POSIX shell (browser mode's "Open folder…").

/** `text` as one POSIX shell word: kept bare when it holds only safe characters, else single-quoted. */
export function shellWord(text: string): string {
  if (text !== '' && /^[\w@%+=:,./~-]+$/.test(text)) return text;
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The folder holding `root` with its separator at the end ('/data/runs/a' → '/data/runs/'); the root itself at the top. */
export function parentFolder(root: string): string {
  const trimmed = root.replace(/[\\/]+$/, '');
  const cut = Math.max(trimmed.lastIndexOf('/'), trimmed.lastIndexOf('\\'));
  return cut < 0 ? root : trimmed.slice(0, cut + 1);
}

/** `rlwatch serve DIR`, DIR quoted for the shell; a placeholder where no folder is typed yet. */
export function serveCommand(dir: string): string {
  const d = dir.trim();
  return `rlwatch serve ${d === '' ? 'OTHER_DIR' : shellWord(d)}`;
}

// Names from run and tag names that are safe as one file or folder name on any OS, made unique within a folder.

/** Characters no file name should hold on any OS: controls and Windows' reserved ones. */
// eslint-disable-next-line no-control-regex
const UNSAFE_IN_NAME = /[\u0000-\u001f\u007f:*?"<>|]/g;

/** `name` as one file name: separators become `__`, unsafe characters `_`, no leading dot; never empty. */
export function safeFileName(name: string, maxLength = 200): string {
  return (
    name
      .replace(/[\\/]+/g, '__')
      .replace(UNSAFE_IN_NAME, '_')
      .replace(/^\./, '_')
      .slice(0, maxLength) || '_'
  );
}

/** Hands out names unique within one folder: a second `a` becomes `a-2` (two tags `a/b` and `a__b` map alike). */
export class UniqueNames {
  private readonly used = new Set<string>();

  take(name: string): string {
    let out = name;
    for (let n = 2; this.used.has(out.toLowerCase()); n++) out = `${name}-${n}`;
    this.used.add(out.toLowerCase());
    return out;
  }
}

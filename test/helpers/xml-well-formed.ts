// Test helper: a strict XML well-formedness check (one root, tags nested and closed, attributes quoted, entities known).

/** The problem with `text` as XML, or null when it is well-formed. A hand-written scanner: no regular expressions. */
export function xmlProblem(text: string): string | null {
  const stack: string[] = [];
  let roots = 0;
  let i = 0;
  const n = text.length;
  const isNameChar = (c: string): boolean =>
    (c >= 'a' && c <= 'z') ||
    (c >= 'A' && c <= 'Z') ||
    (c >= '0' && c <= '9') ||
    c === '_' ||
    c === ':' ||
    c === '-' ||
    c === '.';
  const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r';
  const skipSpace = (): void => {
    while (i < n && isSpace(text[i]!)) i++;
  };
  const readName = (): string => {
    const start = i;
    while (i < n && isNameChar(text[i]!)) i++;
    return text.slice(start, i);
  };
  /** Checks `&…;` at i in text or an attribute value; returns the problem or null and moves past it. */
  const entity = (): string | null => {
    const end = text.indexOf(';', i);
    if (end < 0 || end - i > 10) return `bare & at ${i}`;
    const body = text.slice(i + 1, end);
    const known = ['amp', 'lt', 'gt', 'quot', 'apos'].includes(body);
    let numeric = false;
    if (body.startsWith('#x'))
      numeric = body.length > 2 && [...body.slice(2)].every((c) => '0123456789abcdefABCDEF'.includes(c));
    else if (body.startsWith('#'))
      numeric = body.length > 1 && [...body.slice(1)].every((c) => c >= '0' && c <= '9');
    if (!known && !numeric) return `unknown entity &${body}; at ${i}`;
    i = end + 1;
    return null;
  };
  while (i < n) {
    const c = text[i]!;
    if (c === '&') {
      const p = entity();
      if (p) return p;
      continue;
    }
    if (c !== '<') {
      if (stack.length === 0 && !isSpace(c)) return `text outside the root at ${i}`;
      i++;
      continue;
    }
    if (text.startsWith('<?', i)) {
      const end = text.indexOf('?>', i);
      if (end < 0) return `unclosed processing instruction at ${i}`;
      i = end + 2;
      continue;
    }
    if (text.startsWith('<!--', i)) {
      const end = text.indexOf('-->', i + 4);
      if (end < 0) return `unclosed comment at ${i}`;
      i = end + 3;
      continue;
    }
    if (text.startsWith('<![CDATA[', i)) {
      if (stack.length === 0) return `CDATA outside the root at ${i}`;
      const end = text.indexOf(']]>', i);
      if (end < 0) return `unclosed CDATA at ${i}`;
      i = end + 3;
      continue;
    }
    if (text.startsWith('<!DOCTYPE', i)) {
      if (roots > 0 || stack.length > 0) return `DOCTYPE after the root at ${i}`;
      const end = text.indexOf('>', i);
      if (end < 0) return `unclosed DOCTYPE at ${i}`;
      i = end + 1;
      continue;
    }
    if (text[i + 1] === '/') {
      i += 2;
      const name = readName();
      skipSpace();
      if (text[i] !== '>') return `bad closing tag </${name} at ${i}`;
      i++;
      const open = stack.pop();
      if (open !== name) return `</${name}> closes <${open ?? 'nothing'}> at ${i}`;
      continue;
    }
    i++;
    const name = readName();
    if (name === '') return `bad tag at ${i}`;
    if (stack.length === 0 && roots++ > 0) return `a second root <${name}> at ${i}`;
    const seen = new Set<string>();
    for (;;) {
      const before = i;
      skipSpace();
      if (text.startsWith('/>', i)) {
        i += 2;
        break;
      }
      if (text[i] === '>') {
        i++;
        stack.push(name);
        break;
      }
      if (i === before) return `no space before an attribute of <${name}> at ${i}`;
      const attr = readName();
      if (attr === '') return `bad attribute in <${name}> at ${i}`;
      if (seen.has(attr)) return `attribute ${attr} twice in <${name}> at ${i}`;
      seen.add(attr);
      skipSpace();
      if (text[i] !== '=') return `attribute ${attr} without a value at ${i}`;
      i++;
      skipSpace();
      const quote = text[i];
      if (quote !== '"' && quote !== "'") return `attribute ${attr} not quoted at ${i}`;
      i++;
      while (i < n && text[i] !== quote) {
        if (text[i] === '<') return `< in attribute ${attr} at ${i}`;
        if (text[i] === '&') {
          const p = entity();
          if (p) return p;
        } else i++;
      }
      if (i >= n) return `unclosed attribute ${attr}`;
      i++;
    }
  }
  if (stack.length > 0) return `<${stack[stack.length - 1]}> not closed`;
  if (roots === 0) return 'no root element';
  return null;
}

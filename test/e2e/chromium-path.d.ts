// Types for chromium-path.js (plain JS so the test script can import it without a build).
export function findChromium(): string | null;

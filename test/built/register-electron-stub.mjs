// Node --import hook: resolves the bare specifier 'electron' to the stand-in module next to this file.
import { register } from 'node:module';

register('./electron-stub-hooks.mjs', import.meta.url);

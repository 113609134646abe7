// Svelte compiler options shared by vite-plugin-svelte and svelte-check: runes everywhere.
export default {
  compilerOptions: { runes: true },
};

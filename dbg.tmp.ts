import { createWorkspace } from './src/core/workspace/create';
const ws = createWorkspace({ watch: false });
await ws.open(process.argv[2]!);
await new Promise((r) => setTimeout(r, 500));
for (const r of ws.listRuns()) console.log(r.run, JSON.stringify(r.sources), r.lastEventAt, r.fileWrittenAt);
await ws.close();
export {};

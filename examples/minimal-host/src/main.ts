// Entry point: one host per process, speaking the host control protocol on
// stdin/stdout. Run it as `node dist/main.js`.

import { serveStdio, log } from "./rpc";
import { Host } from "./host";

const host = new Host();
process.on("uncaughtException", (e) => log(`uncaught: ${(e as Error)?.stack ?? String(e)}`));
process.on("unhandledRejection", (e) => log(`unhandled rejection: ${(e as Error)?.stack ?? String(e)}`));
serveStdio((method) => host.method(method), () => host.close());

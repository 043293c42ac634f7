// Pi's RpcClient starts `node <cliPath> --mode rpc ...`; this stands in for Pi's cli.js and runs
// the tack binary named by TACK_BIN with the same arguments and stdio.
import { spawn } from "node:child_process";

const child = spawn(process.env.TACK_BIN, process.argv.slice(2), { stdio: "inherit" });
for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

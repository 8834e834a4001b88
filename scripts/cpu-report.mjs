// Loaded into each test file's process by scripts/run-tests.mjs: prints the CPU time the process used when it exits,
// so the runner can report the suite's CPU total (a figure that does not depend on what else the machine is doing).
process.on('exit', () => {
  const u = process.cpuUsage();
  process.stdout.write(`ℹ cpu_ms ${Math.round((u.user + u.system) / 1000)}\n`);
});

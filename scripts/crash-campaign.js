#!/usr/bin/env node
// The crash campaign (issue 17, docs/operations.md): `npm run crash-campaign` on SQLite, or with DATABASE_URL set on
// PostgreSQL with two server processes. CAMPAIGN_KILLS (20), CAMPAIGN_SEED, CAMPAIGN_CONCURRENCY (6). Prints the
// report; exits 1 when anything acknowledged was lost or anything was done twice.
const { runCrashCampaign } = await import(new URL('../dist/test/support/crash-campaign.js', import.meta.url).href);

const report = await runCrashCampaign({
  seed: Number(process.env.CAMPAIGN_SEED ?? 20261129),
  kills: Number(process.env.CAMPAIGN_KILLS ?? 20),
  concurrency: Number(process.env.CAMPAIGN_CONCURRENCY ?? 6),
  log: (line) => console.error(line),
});
console.log(JSON.stringify(report, null, 2));
process.exit(report.problems.length === 0 ? 0 : 1);

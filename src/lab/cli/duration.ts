import { UsageError } from '../../cli/output.js';

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration as the lab's options write it (`90s`, `10m`, `2h`, `30d`), in seconds. */
export function durationSeconds(text: string, option: string): number {
  const match = /^(\d+)([smhd])$/.exec(text);
  if (!match) throw new UsageError(`${option} is a number and a unit: 90s, 10m, 2h, 30d`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

// What doctor's report says, decided once for both renderers (the job summary and the terminal): the
// headline, each slot's state, resources and verdict. They differ only in marks and escaping.
import { plural } from '../text/words.ts';
import type { DoctorReport, DoctorRow } from './model.ts';

/** After `preview-gc doctor on pool <pool>: `. */
export function doctorHeadline(doctor: DoctorReport): string {
  const withProblems = doctor.rows.filter((row) => problemsOf(row) > 0).length;
  return withProblems === 0
    ? `${plural(doctor.rows.length, 'slot')}, no problem found`
    : `${withProblems} of ${plural(doctor.rows.length, 'slot')} ${withProblems === 1 ? 'has a problem' : 'have problems'}`;
}

function problemsOf(row: DoctorRow): number {
  return row.findings.filter((finding) => finding.severity === 'problem').length;
}

/** `available`, `available, dirty`, `leased (expired)`: a leased slot holds its holder's data, dirty or not. */
export function doctorState(row: DoctorRow): string {
  const dirty = row.dirty && row.leaseState === 'available' ? ', dirty' : '';
  return `${row.leaseState}${row.expired ? ' (expired)' : ''}${dirty}`;
}

/** `5 of 5`, or `–` when they were not looked for. */
export function doctorResources(row: DoctorRow): string {
  return row.resources === null ? '–' : `${row.resources.present} of ${row.resources.named}`;
}

/** The slot's verdict: problems first, then notes. */
export function doctorVerdict(row: DoctorRow): { tone: 'ok' | 'note' | 'problem'; text: string } {
  const problems = problemsOf(row);
  if (problems > 0) return { tone: 'problem', text: plural(problems, 'problem') };
  const notes = row.findings.length;
  return notes > 0 ? { tone: 'note', text: `ok, ${plural(notes, 'note')}` } : { tone: 'ok', text: 'ok' };
}

/** The column headings of doctor's table. */
export const DOCTOR_COLUMNS = ['Slot', 'State', 'Holder', 'Lease', 'Resources', 'Verdict'] as const;

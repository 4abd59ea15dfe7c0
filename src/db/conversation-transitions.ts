import { Prisma as Db } from '../generated/prisma/client';
import {
  CONVERSATION_STATUSES,
  type ConversationHappening,
  type ConversationStatusName,
  type ConversationTransition,
  conversationTransition,
} from '../domain/conversation-transitions';

/*
 * The conversation's transition table (src/domain/conversation-transitions.ts) as SQL, for the statements
 * that move a conversation in the statement that stores its message: a client's text (the inbound
 * upsert) and our answer (in the accept's own statement). `c` is the conversation's row before.
 * test/conversations/transitions-sql.test.ts runs these against PostgreSQL for every cell of the table.
 */

const { sql, raw } = Db;

/** What a transition's fields are set from: now, and a snooze's date. */
export interface TransitionValues {
  at: Date;
  until?: Date | null;
}

type Field = keyof Omit<ConversationTransition, 'event' | 'eventOnFirstText'>;
const COLUMNS: Record<Field, string> = { status: 'status', snoozedUntil: 'snoozed_until', waitingSince: 'waiting_since', firstInboundAt: 'first_inbound_at' };

/** One field's new value, in SQL, for the transition's step. */
function stepSql(field: Field, step: string, values: TransitionValues): Db.Sql {
  const column = raw(`c.${COLUMNS[field]}`);
  if (step === 'keep') return sql`${column}`;
  if (step === 'clear') return sql`NULL`;
  if (step === 'set') return sql`${values.until ?? null}::timestamptz`;
  if (step === 'start') return sql`COALESCE(${column}, ${values.at}::timestamptz)`;
  return sql`${step}::"ConversationStatus"`;
}

/** The transitions of `happening` from each of `states` that change a row. */
function cellsOf(happening: ConversationHappening, states: readonly ConversationStatusName[]): [ConversationStatusName, ConversationTransition][] {
  return states.flatMap((state) => {
    const cell = conversationTransition(state, happening);
    return cell !== undefined && typeof cell !== 'string' ? [[state, cell] as [ConversationStatusName, ConversationTransition]] : [];
  });
}

/**
 * `column = value, …` for `happening` on a row in any of `states`: one expression where every state
 * takes the same step, else a CASE on the row's status.
 */
export function transitionAssignments(happening: ConversationHappening, values: TransitionValues, states: readonly ConversationStatusName[] = CONVERSATION_STATUSES): Db.Sql {
  const cells = cellsOf(happening, states);
  const assignments = (Object.keys(COLUMNS) as Field[]).map((field) => {
    const steps = new Set(cells.map(([, cell]) => cell[field]));
    const value =
      steps.size === 1
        ? stepSql(field, cells[0][1][field], values)
        : sql`CASE c.status ${Db.join(cells.map(([state, cell]) => sql`WHEN ${state}::"ConversationStatus" THEN ${stepSql(field, cell[field], values)}`), ' ')} END`;
    return sql`${raw(COLUMNS[field])} = ${value}`;
  });
  return Db.join(assignments, ', ');
}

/** The new row's status, snoozed_until, waiting_since and first_inbound_at, in that order, when `happening` creates it. */
export function creationValues(happening: ConversationHappening, values: TransitionValues): Db.Sql {
  const cell = conversationTransition('none', happening);
  if (cell === undefined || typeof cell === 'string' || cell.status === 'keep') throw new Error(`A conversation is not created by ${happening}`);
  const dateOf = (step: string) => (step === 'start' ? values.at : step === 'set' ? (values.until ?? null) : null);
  return sql`${cell.status}::"ConversationStatus", ${dateOf(cell.snoozedUntil)}::timestamptz, ${dateOf(cell.waitingSince)}::timestamptz, ${dateOf(cell.firstInboundAt)}::timestamptz`;
}

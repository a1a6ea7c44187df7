/**
 * The live grid's datasource (AG Grid's infinite row model, decision 0062): the blocks the grid
 * asks for are read from the stream worker's rows (liveRowModel.ts), in the grid's sort order.
 * The blocks asked for together (a refresh asks for every block it holds, each from its own
 * zero-delay timeout) go to the worker as one request, so they come from one state of the rows:
 * no row twice, none missed at a block's edge.
 *
 * The request after `refreshing()` takes the rows that came since the last refresh (`take`): they
 * are merged in the worker just before it answers, so what the grid draws is as new as it can be.
 * Other requests (a block scrolled to) read the rows as the last refresh left them, so they fit
 * the blocks the grid already holds.
 */
import type { IDatasource, IGetRowsParams, SortModelItem } from "ag-grid-community";
import type { BlotterStream, LiveRowsAnswer } from "./blotterStream";
import type { SortEntry } from "./liveRowModel";

export interface LiveDatasource extends IDatasource {
  /** The sort order of the last blocks asked for (the grid's). */
  readonly sort: SortEntry[];
  /** Blocks were asked for and are not answered yet. */
  readonly reading: boolean;
  /** The grid is about to read every block it holds again: that read takes the new rows. */
  refreshing(): void;
}

export interface LiveDatasourceHooks {
  /** An answer came, before the grid draws its rows (a `take`'s answer says what it merged). */
  taking?: (answer: LiveRowsAnswer) => void;
  /** The grid took the blocks of one request; `tookMs`: how long that took. */
  answered: (answer: LiveRowsAnswer, tookMs: number) => void;
}

const sortOf = (model: SortModelItem[]): SortEntry[] => model.map(({ colId, sort }) => ({ colId, sort }));

export function createLiveDatasource(
  stream: Pick<BlotterStream, "rows">,
  hooks: LiveDatasourceHooks,
  now: () => number = () => performance.now(),
): LiveDatasource {
  let asked: IGetRowsParams[] = [];
  let sort: SortEntry[] = [];
  let unanswered = 0;
  let take = false;

  function ask() {
    const batch = asked;
    asked = [];
    sort = sortOf(batch[0]!.sortModel);
    unanswered++;
    const taking = take;
    take = false;
    stream
      .rows(
        batch.map((p) => ({ start: p.startRow, end: p.endRow })),
        sort,
        taking,
      )
      .then(
        (answer) => {
          unanswered--;
          hooks.taking?.(answer);
          const started = now();
          batch.forEach((p, i) => p.successCallback(answer.blocks[i] ?? [], answer.rowCount));
          hooks.answered(answer, now() - started);
        },
        () => {
          unanswered--;
          batch.forEach((p) => p.failCallback());
        },
      );
  }

  return {
    getRows(params) {
      asked.push(params);
      // AG Grid asks for each block from its own zero-delay timeout: one more timeout, queued
      // behind theirs, gathers every block of a refresh.
      if (asked.length === 1) setTimeout(ask, 0);
    },
    refreshing() {
      take = true;
    },
    get sort() {
      return sort;
    },
    get reading() {
      return unanswered > 0;
    },
  };
}

/**
 * The live grid's datasource (AG Grid's infinite row model, decision 0059): the blocks the grid
 * asks for are read from the stream worker's rows (liveRowModel.ts), in the grid's sort order.
 * The blocks asked for together (a refresh asks for every block it holds, each from its own
 * zero-delay timeout) go to the worker as one request, so they come from one state of the rows:
 * no row twice, none missed at a block's edge.
 */
import type { IDatasource, IGetRowsParams, SortModelItem } from "ag-grid-community";
import type { BlotterStream, LiveRowsAnswer } from "./blotterStream";
import type { SortEntry } from "./liveRowModel";

export interface LiveDatasource extends IDatasource {
  /** The sort order of the last blocks asked for (the grid's). */
  readonly sort: SortEntry[];
  /** Blocks were asked for and are not answered yet. */
  readonly reading: boolean;
}

const sortOf = (model: SortModelItem[]): SortEntry[] => model.map(({ colId, sort }) => ({ colId, sort }));

/** `answered` runs after the grid took the blocks of one request, with the time that took (ms). */
export function createLiveDatasource(
  stream: Pick<BlotterStream, "rows">,
  answered: (answer: LiveRowsAnswer, tookMs: number) => void,
  now: () => number = () => performance.now(),
): LiveDatasource {
  let asked: IGetRowsParams[] = [];
  let sort: SortEntry[] = [];
  let unanswered = 0;

  function ask() {
    const batch = asked;
    asked = [];
    sort = sortOf(batch[0]!.sortModel);
    unanswered++;
    stream
      .rows(
        batch.map((p) => ({ start: p.startRow, end: p.endRow })),
        sort,
      )
      .then(
        (answer) => {
          unanswered--;
          const started = now();
          batch.forEach((p, i) => p.successCallback(answer.blocks[i] ?? [], answer.rowCount));
          answered(answer, now() - started);
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
    get sort() {
      return sort;
    },
    get reading() {
      return unanswered > 0;
    },
  };
}

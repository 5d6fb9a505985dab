package io.verglas.bench.workers;

import io.verglas.workers.api.Worker;
import io.verglas.workers.api.WorkerContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The worker whose runs the benchmark kills: {@value #COMMITS} commits of {@value #ROWS} rows
 * each to output {@code out}, every row named by (trigger id, commit, row), so a commit made
 * twice shows as duplicated rows of an append-only table.
 */
public final class EffectsWorker implements Worker {
  static final int COMMITS = 3;
  static final int ROWS = 10;

  @Override
  public void handle(WorkerContext ctx) {
    String trigger = ctx.trigger().getId();
    for (int commit = 0; commit < COMMITS; commit++) {
      List<Map<String, Object>> rows = new ArrayList<>(ROWS);
      for (int row = 0; row < ROWS; row++) {
        rows.add(Map.of("trigger", trigger, "commit_no", commit, "row_no", row));
      }
      ctx.output("out").commit(rows);
    }
  }
}

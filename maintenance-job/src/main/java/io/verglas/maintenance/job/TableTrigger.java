package io.verglas.maintenance.job;

import io.verglas.maintenance.source.TableSignal;
import java.time.Duration;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.util.Collector;

/**
 * Keyed by table: turns signals into work items, at most one per table per rewrite pause.
 *
 * <p>Design: the first signal of a quiet table becomes a work item at once and starts a
 * cool-down; signals during the cool-down only mark the table pending, and the cool-down's end
 * emits one item for all of them. Back-to-back rewrites of one table would starve the
 * materializer's commits (optimistic concurrency has no fairness), and a busy table would
 * otherwise be planned once per commit. State exists only for tables in cool-down, so idle
 * tables cost nothing.
 */
public final class TableTrigger extends KeyedProcessFunction<String, TableSignal, WorkItem> {
  private static final long serialVersionUID = 1L;

  private final long pauseMillis;
  private transient ValueState<Long> coolingUntil;
  private transient ValueState<Boolean> pendingSweep;

  public TableTrigger(Duration pause) {
    this.pauseMillis = pause.toMillis();
  }

  @Override
  public void open(OpenContext context) {
    coolingUntil = getRuntimeContext().getState(
        new ValueStateDescriptor<>("cooling-until", Types.LONG));
    pendingSweep = getRuntimeContext().getState(
        new ValueStateDescriptor<>("pending-sweep", Types.BOOLEAN));
  }

  @Override
  public void processElement(TableSignal signal, Context ctx, Collector<WorkItem> out)
      throws Exception {
    if (coolingUntil.value() == null) {
      emit(ctx.getCurrentKey(), signal.sweep(), ctx, out);
    } else {
      Boolean sweep = pendingSweep.value();
      pendingSweep.update((sweep != null && sweep) || signal.sweep());
    }
  }

  @Override
  public void onTimer(long timestamp, OnTimerContext ctx, Collector<WorkItem> out)
      throws Exception {
    Boolean pending = pendingSweep.value();
    coolingUntil.clear();
    pendingSweep.clear();
    if (pending != null) {
      emit(ctx.getCurrentKey(), pending, ctx, out);
    }
  }

  private void emit(String table, boolean sweep, Context ctx, Collector<WorkItem> out)
      throws Exception {
    out.collect(new WorkItem(table, sweep));
    long until = ctx.timerService().currentProcessingTime() + pauseMillis;
    coolingUntil.update(until);
    ctx.timerService().registerProcessingTimeTimer(until);
  }
}

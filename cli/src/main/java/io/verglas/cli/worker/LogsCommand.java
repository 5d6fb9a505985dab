package io.verglas.cli.worker;

import io.verglas.cli.stack.StackOptions;
import io.verglas.sdk.QueryAnswer;
import io.verglas.sdk.TableClient;
import io.verglas.sdk.TableSnapshot;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.systable.SystemTables;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code verglas logs NAME}. */
@Command(name = "logs", mixinStandardHelpOptions = true, description = "Show a deployment's "
    + "run events (start, commit, log, end, error) from verglas_sys.<NAME>_logs, oldest first.")
public final class LogsCommand implements Callable<Integer> {
  @Mixin StackOptions stack;
  @Spec CommandSpec spec;

  @Parameters(paramLabel = "NAME", description = "The deployment")
  String name;

  @Option(names = "--run", description = "Only this run (IDENTITY#GENERATION, as listed)")
  String run;

  @Option(names = "--limit", description = "The latest events at most (default: 100)")
  int limit = 100;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    try (WorkerPlane plane = new WorkerPlane(stack)) {
      plane.current("show logs of " + name, name);
      List<Map<String, Object>> events = events(plane.client().table(WorkerHarness.logsTable(name)));
      if (events.isEmpty()) {
        spec.commandLine().getErr().println("No run events of " + name
            + (run == null ? "" : " for run " + run) + " yet (see `verglas runs " + name + "`)");
      }
      for (Map<String, Object> e : events.subList(Math.max(0, events.size() - limit), events.size())) {
        out.println(line(e));
      }
    }
    out.flush();
    return 0;
  }

  private List<Map<String, Object>> events(TableClient logs) {
    Optional<TableSnapshot> snapshot = SystemTables.snapshot(logs);
    if (snapshot.isEmpty()) {
      return List.of(); // never ran: the first run makes the log table
    }
    QueryAnswer answer = logs.rows(snapshot.get().snapshotId(),
        run == null ? null : org.apache.iceberg.expressions.Expressions.equal("run", run));
    if (answer.truncated()) {
      spec.commandLine().getErr().println("(more events than the query endpoint returns at "
          + "once; narrow with --run)");
    }
    return answer.rows().stream().sorted(Comparator
        .comparing((Map<String, Object> r) -> String.valueOf(r.get("time")))
        .thenComparing(r -> (String) r.get("run"))
        .thenComparingInt(r -> ((Number) r.get("seq")).intValue())).toList();
  }

  private static String line(Map<String, Object> e) {
    StringBuilder line = new StringBuilder().append(e.get("time")).append(' ')
        .append(e.get("run")).append(' ').append(e.get("kind"));
    append(line, "level", e.get("level"));
    append(line, "table", e.get("table_name"));
    append(line, "rows", e.get("rows"));
    append(line, "snapshot", e.get("snapshot_id"));
    if (e.get("message") != null) {
      line.append(": ").append(e.get("message"));
    }
    return line.toString();
  }

  private static void append(StringBuilder line, String key, Object value) {
    if (value != null && !Objects.toString(value).isEmpty()) {
      line.append(' ').append(key).append('=').append(value);
    }
  }
}

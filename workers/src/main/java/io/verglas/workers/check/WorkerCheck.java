package io.verglas.workers.check;

import io.cloudevents.CloudEvent;
import io.verglas.sdk.VerglasClient;
import io.verglas.workers.harness.Deployment;
import io.verglas.workers.harness.RunObserver;
import io.verglas.workers.harness.RunResult;
import io.verglas.workers.harness.RunSpec;
import io.verglas.workers.harness.WorkerHarness;
import io.verglas.workers.harness.WorkerRunException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletionService;
import java.util.concurrent.ExecutorCompletionService;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.iceberg.catalog.TableIdentifier;

/**
 * The conformance check of a worker ({@code ./verglas worker check JAR CLASS}): a worker must
 * leave its tables in the same state however often, and however interrupted, it runs for one
 * trigger.
 *
 * <p>Procedure, each run through the {@link WorkerHarness} (a child JVM, commits keyed by the
 * trigger) against its own scratch copy of the fixture's tables ({@link ScratchSet}):
 * <ol>
 *   <li>run 1: a clean run on copy A; then, in parallel (the copies are independent):
 *   <li>the same trigger again on A (a replay), which must change nothing;
 *   <li>run 2: a clean run on copy B, which must equal A (same rows, same schema);
 *   <li>run 3 on copy C: {@code kills} attempts SIGKILLed at random points (uniform in
 *       [0, 0.9 × run 1's duration] after the process started), then one that completes; C
 *       must equal A.
 * </ol>
 * Any difference fails the check, naming the table and a few differing rows; so does a run
 * that fails. The first failure ends the check (runs still going are killed). The scratch
 * tables, their namespaces and the check's logs table are dropped at the end, whether it passed,
 * failed or broke off with an exception; what could not be dropped is named in the verdict.
 */
public final class WorkerCheck {
  /** How the namespaces of scratch tables begin ({@code verglas_check_<id>_<copy>}). */
  public static final String SCRATCH_PREFIX = "verglas_check_";
  private final WorkerHarness harness;
  private final VerglasClient client;
  private final int kills;
  private final Random random;
  private final long seed;

  /** @param seed the random kill points' seed (the verdict prints it, to repeat a check) */
  public WorkerCheck(WorkerHarness harness, VerglasClient client, int kills, long seed) {
    if (kills < 0) {
      throw new IllegalArgumentException("Invalid number of kills: " + kills);
    }
    this.harness = harness;
    this.client = client;
    this.kills = kills;
    this.random = new Random(seed);
    this.seed = seed;
  }

  /** Checks {@code workerClass} (in {@code jar}, or on the runtime class path when null). */
  public CheckVerdict check(Path jar, String workerClass, CheckFixture fixture)
      throws InterruptedException {
    String id = HexFormat.of().toHexDigits(random.nextInt());
    String deployment = "check-" + id;
    List<String> lines = new ArrayList<>();
    lines.add("worker check of " + workerClass + (jar == null ? "" : " in " + jar)
        + ", kills " + kills + ", seed " + seed);
    List<ScratchSet> sets = new ArrayList<>();
    String failure;
    try {
      for (String copy : List.of("a", "b", "c")) {
        ScratchSet set = new ScratchSet(client, fixture, SCRATCH_PREFIX + id + "_" + copy);
        sets.add(set); // before its tables exist: a half-made set is dropped too
        set.create();
      }
      failure = runAll(deployment, jar, workerClass, sets, lines);
    } finally {
      lines.addAll(cleanUp(sets, deployment));
    }
    lines.add(failure == null ? "PASS: the same table state from every run, replay and kill"
        : "FAIL: " + failure);
    return new CheckVerdict(failure == null, lines);
  }

  /** Drops the scratch sets (tables and namespaces) and the logs table; what failed, as lines. */
  private List<String> cleanUp(List<ScratchSet> sets, String deployment) {
    List<String> failures = new ArrayList<>();
    sets.forEach(set -> set.drop(failures));
    TableIdentifier logs = WorkerHarness.logsTable(deployment);
    try {
      if (client.listTables(logs.namespace()).contains(logs)) {
        awaitLogsCommitted(logs, deployment);
        client.dropTable(logs, true);
      }
    } catch (RuntimeException e) {
      failures.add("Cannot drop the check's logs table " + logs + ": " + e.getMessage());
    }
    return failures.stream().map(f -> "left behind: " + f).toList();
  }

  /**
   * Returns once the runs' log rows are committed to {@code logs}, so dropping the table
   * discards nothing the materializer still buffers: it commits a marker row and waits for it
   * ({@link io.verglas.sdk.TableClient#commit}). The runs' rows were acknowledged before the
   * marker was sent, on the same WAL stream of a single ingest process (the local stack), and
   * the materializer commits a stream's segments in order, so they are committed no later.
   */
  private void awaitLogsCommitted(TableIdentifier logs, String deployment) {
    String marker = deployment + "/cleanup";
    client.table(logs).commit(List.of(Map.of("run", marker, "seq", 0, "deployment", deployment,
        "trigger", marker, "attempt", 0, "time", Instant.now(), "kind", "end",
        "message", "check ended: its logs table is dropped")), marker);
  }

  /** The steps; null when all agree, else what failed. */
  private String runAll(String deployment, Path jar, String workerClass, List<ScratchSet> sets,
      List<String> lines) throws InterruptedException {
    Deployment a = sets.get(0).deployment(deployment, jar, workerClass);
    CloudEvent trigger = sets.get(0).trigger();
    String identity = deployment + "/" + trigger.getId();
    long start = System.nanoTime();
    RunResult first;
    try {
      first = harness.run(harness.spec(a, identity, trigger, identity + "#1", 1));
    } catch (WorkerRunException e) {
      return "run 1 failed: " + e.getMessage();
    }
    long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
    lines.add("run 1: " + first.commits() + " commits, " + first.rows() + " rows in " + millis + " ms");
    Map<String, TableState> expected = sets.get(0).state();
    List<Callable<Step>> steps = List.of(
        () -> cleanRun("its replay", a, identity, sets.get(0), identity + "#2", 2, expected),
        () -> cleanRun("run 2", sets.get(1).deployment(deployment, jar, workerClass), identity,
            sets.get(1), identity + "#b1", 1, expected),
        () -> killedRuns(sets.get(2).deployment(deployment, jar, workerClass), identity,
            sets.get(2), millis, expected));
    ExecutorService pool = Executors.newFixedThreadPool(steps.size(), daemon("verglas-check"));
    try {
      return awaitSteps(pool, steps, lines);
    } finally {
      pool.shutdownNow(); // a step still running after a failure is interrupted: its run killed
      pool.awaitTermination(30, TimeUnit.SECONDS);
    }
  }

  /**
   * Runs the independent steps at once; their lines in step order. The first failure ends the
   * check without waiting for the other steps.
   */
  private static String awaitSteps(ExecutorService pool, List<Callable<Step>> steps,
      List<String> lines) throws InterruptedException {
    CompletionService<Step> done = new ExecutorCompletionService<>(pool);
    Map<Future<Step>, Integer> order = new HashMap<>();
    for (int i = 0; i < steps.size(); i++) {
      order.put(done.submit(steps.get(i)), i);
    }
    Step[] found = new Step[steps.size()];
    String failure = null;
    for (int i = 0; i < steps.size() && failure == null; i++) {
      Future<Step> next = done.take();
      Step step = result(next);
      found[order.get(next)] = step;
      failure = step.failure();
    }
    for (Step step : found) {
      if (step != null) {
        lines.addAll(step.lines());
      }
    }
    return failure;
  }

  /** One run to completion on {@code set}, compared with run 1 as {@code step}. */
  private Step cleanRun(String step, Deployment deployment, String identity, ScratchSet set,
      String runId, int attempt, Map<String, TableState> expected) throws InterruptedException {
    try {
      harness.run(harness.spec(deployment, identity, set.trigger(), runId, attempt));
    } catch (WorkerRunException e) {
      return Step.failed(step + " failed: " + e.getMessage());
    }
    return compare(expected, step, set.state(), List.of());
  }

  private Step killedRuns(Deployment c, String identity, ScratchSet set, long cleanMillis,
      Map<String, TableState> expected) throws InterruptedException {
    CloudEvent trigger = set.trigger();
    List<String> attempts = new ArrayList<>();
    ScheduledExecutorService killer =
        Executors.newSingleThreadScheduledExecutor(daemon("verglas-check-killer"));
    try {
      for (int attempt = 1; attempt <= kills; attempt++) {
        long delay = (long) (random.nextDouble() * 0.9 * cleanMillis);
        KillAt kill = new KillAt(killer, delay);
        RunSpec spec = harness.spec(c, identity, trigger, identity + "#c" + attempt, attempt);
        try {
          harness.run(spec, kill);
          attempts.add("completed before its kill at " + delay + " ms");
        } catch (WorkerRunException e) {
          if (!kill.fired()) {
            return Step.failed("run 3 attempt " + attempt + " failed: " + e.getMessage());
          }
          attempts.add("killed at " + delay + " ms");
        } finally {
          kill.cancel();
        }
      }
      harness.run(harness.spec(c, identity, trigger, identity + "#c" + (kills + 1), kills + 1));
    } catch (WorkerRunException e) {
      return Step.failed("run 3 failed after its kills: " + e.getMessage());
    } finally {
      killer.shutdownNow();
    }
    return compare(expected, "run 3", set.state(), List.of("run 3: " + String.join(", ", attempts)
        + (attempts.isEmpty() ? "" : ", then ") + "completed"));
  }

  /** Run 1's tables against another run's. */
  private static Step compare(Map<String, TableState> expected, String other,
      Map<String, TableState> actual, List<String> lines) {
    for (Map.Entry<String, TableState> table : expected.entrySet()) {
      String difference = table.getValue().difference(actual.get(table.getKey()));
      if (difference != null) {
        return new Step(lines, "table " + table.getKey() + " differs between run 1 and "
            + other + ": " + difference);
      }
    }
    List<String> found = new ArrayList<>(lines);
    found.add(other + ": the same table state as run 1");
    return new Step(found, null);
  }

  private static Step result(Future<Step> future) throws InterruptedException {
    try {
      return future.get();
    } catch (ExecutionException e) {
      return Step.failed("a step failed: " + e.getCause());
    }
  }

  private static ThreadFactory daemon(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }

  /** What one step found: lines to print, and the failure or null. */
  private record Step(List<String> lines, String failure) {
    static Step failed(String failure) {
      return new Step(List.of(), failure);
    }
  }

  /** SIGKILLs a run's process {@code delay} ms after it started. */
  private static final class KillAt implements RunObserver {
    private final ScheduledExecutorService killer;
    private final long delay;
    private final AtomicBoolean fired = new AtomicBoolean();
    private volatile ScheduledFuture<?> pending;

    KillAt(ScheduledExecutorService killer, long delay) {
      this.killer = killer;
      this.delay = delay;
    }

    @Override
    public void started(RunSpec run, ProcessHandle process) {
      pending = killer.schedule(() -> {
        if (process.isAlive()) {
          fired.set(true); // before the kill: the run ends as soon as the process dies
          process.destroyForcibly();
        }
      }, delay, TimeUnit.MILLISECONDS);
    }

    /** Once the run ended: a kill still pending must not hit a reused process id. */
    void cancel() {
      ScheduledFuture<?> kill = pending;
      if (kill != null) {
        kill.cancel(false);
      }
    }

    boolean fired() {
      return fired.get();
    }
  }
}

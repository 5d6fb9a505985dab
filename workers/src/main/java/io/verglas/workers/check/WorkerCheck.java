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
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The conformance check of a worker ({@code ./verglas worker check JAR CLASS}): a worker must
 * leave its tables in the same state however often, and however interrupted, it runs for one
 * trigger.
 *
 * <p>Procedure, each run through the {@link WorkerHarness} (a child JVM, commits keyed by the
 * trigger) against its own scratch copy of the fixture's tables ({@link ScratchSet}):
 * <ol>
 *   <li>run 1: a clean run on copy A; then the same trigger again on A (a replay), which must
 *       change nothing;
 *   <li>run 2: a clean run on copy B, which must equal A (same rows, same schema);
 *   <li>run 3 on copy C: {@code kills} attempts SIGKILLed at random points (uniform in
 *       [0, 0.9 × run 1's duration] after the process started), then one that completes; C
 *       must equal A.
 * </ol>
 * Any difference fails the check, naming the table and a few differing rows; so does a run
 * that fails. The scratch tables and the check's logs table are dropped at the end (their
 * namespaces stay).
 */
public final class WorkerCheck {
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
    try {
      for (String copy : List.of("a", "b", "c")) {
        sets.add(ScratchSet.create(client, fixture, "verglas_check_" + id + "_" + copy));
      }
      String failure = runAll(deployment, jar, workerClass, sets, lines);
      lines.add(failure == null ? "PASS: the same table state from every run, replay and kill"
          : "FAIL: " + failure);
      return new CheckVerdict(failure == null, lines);
    } finally {
      sets.forEach(ScratchSet::drop);
      if (client.listTables(WorkerHarness.logsTable(deployment).namespace())
          .contains(WorkerHarness.logsTable(deployment))) {
        client.dropTable(WorkerHarness.logsTable(deployment), true);
      }
    }
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
    String failure = replay(a, trigger, identity, sets.get(0), expected, lines);
    if (failure == null) {
      failure = cleanRun(deployment, jar, workerClass, sets.get(1), identity, expected, lines);
    }
    if (failure == null) {
      failure = killedRuns(deployment, jar, workerClass, sets.get(2), identity, millis, expected,
          lines);
    }
    return failure;
  }

  private String replay(Deployment a, CloudEvent trigger, String identity, ScratchSet set,
      Map<String, TableState> expected, List<String> lines) throws InterruptedException {
    try {
      harness.run(harness.spec(a, identity, trigger, identity + "#2", 2));
    } catch (WorkerRunException e) {
      return "the replay of run 1 failed: " + e.getMessage();
    }
    return compare("run 1", expected, "its replay", set.state(), lines);
  }

  private String cleanRun(String deployment, Path jar, String workerClass, ScratchSet set,
      String identity, Map<String, TableState> expected, List<String> lines)
      throws InterruptedException {
    CloudEvent trigger = set.trigger();
    try {
      harness.run(harness.spec(set.deployment(deployment, jar, workerClass), identity, trigger,
          identity + "#b1", 1));
    } catch (WorkerRunException e) {
      return "run 2 failed: " + e.getMessage();
    }
    return compare("run 1", expected, "run 2", set.state(), lines);
  }

  private String killedRuns(String deployment, Path jar, String workerClass, ScratchSet set,
      String identity, long cleanMillis, Map<String, TableState> expected, List<String> lines)
      throws InterruptedException {
    Deployment c = set.deployment(deployment, jar, workerClass);
    CloudEvent trigger = set.trigger();
    List<String> attempts = new ArrayList<>();
    ScheduledExecutorService killer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "verglas-check-killer");
      thread.setDaemon(true);
      return thread;
    });
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
            return "run 3 attempt " + attempt + " failed: " + e.getMessage();
          }
          attempts.add("killed at " + delay + " ms");
        } finally {
          kill.cancel();
        }
      }
      harness.run(harness.spec(c, identity, trigger, identity + "#c" + (kills + 1), kills + 1));
    } catch (WorkerRunException e) {
      return "run 3 failed after its kills: " + e.getMessage();
    } finally {
      killer.shutdownNow();
    }
    lines.add("run 3: " + String.join(", ", attempts) + (attempts.isEmpty() ? "" : ", then ")
        + "completed");
    return compare("run 1", expected, "run 3", set.state(), lines);
  }

  private static String compare(String what, Map<String, TableState> expected, String other,
      Map<String, TableState> actual, List<String> lines) {
    for (Map.Entry<String, TableState> table : expected.entrySet()) {
      String difference = table.getValue().difference(actual.get(table.getKey()));
      if (difference != null) {
        return "table " + table.getKey() + " differs between " + what + " and " + other + ": "
            + difference;
      }
    }
    lines.add(other + ": the same table state as " + what);
    return null;
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

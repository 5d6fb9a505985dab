package io.verglas.workers.harness;

import io.cloudevents.CloudEvent;
import io.verglas.access.ObjectGrant;
import io.verglas.access.ScopedTokens;
import io.verglas.access.TableScope;
import io.verglas.queue.QueueObjectGrants;
import io.verglas.sdk.VerglasClient;
import io.verglas.store.ObjectStoreEndpoint;
import io.verglas.workers.api.QueueGrants;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs one dispatch of a deployment in a JVM of its own and logs it.
 *
 * <p>Design. Isolation: every run is a fresh process ({@link WorkerMain}) on the deployment's
 * jar plus the runtime class path, so a worker keeps no state between runs, cannot corrupt the
 * scheduler's JVM, and can be killed: at the deployment's timeout the harness kills it
 * ({@code destroyForcibly}, SIGKILL) and reports a timeout. The run spec, secrets included,
 * goes to the process's standard input; its events come back on its standard output
 * ({@link RunEventCodec}); its standard error is drained and its tail explains a process that
 * died.
 *
 * <p>Exactly-once effects from at-least-once runs: a run's commits are keyed by
 * {@link CommitKeys#commit} (deployment, trigger identity, ordinal), so when a killed, failed
 * or timed-out run is dispatched again its commits up to where the first attempt got are
 * absorbed by the tables (the ingest server answers a known key with its first
 * acknowledgement) and the rest are made once.
 *
 * <p>Logs: the harness, not the run's process, appends the run's events to
 * {@code verglas_sys.<deployment>_logs} ({@link RunLog}): start, one per commit, the worker's
 * log messages (bounded), then end (with the rows committed) or error (the worker's failure, a
 * timeout, or a process that died without saying why), or permanent error (a failure no retry
 * can cure, reported by the process ({@link WorkerMain}) or found here: a scope too large for a
 * token); the run's {@link WorkerRunException} says which ({@link WorkerRunException#permanent}).
 *
 * <p>Credentials: with a token minter ({@link #WorkerHarness(WorkerEndpoints, HarnessSettings,
 * ScopedTokens)}) the run's process never sees the stack's tokens: the harness mints it a
 * scoped token of the deployment's data grants (subject {@code <deployment>/<run id>}, expiring
 * {@link #TOKEN_MARGIN} after the run's timeout, when the process is dead anyway) and hands it
 * over as the Flight, query and change feed token, so the servers refuse a table outside the
 * grants even to a worker that bypasses its {@link io.verglas.workers.api.WorkerContext}.
 * The same token carries object grants of exactly the queue objects its queue grants touch
 * ({@link QueueObjectGrants}), and the process reaches the queues' object store with the token's
 * S3 session credentials instead of the store's keys, so the cache node refuses (403) any other
 * object, another queue's or a table's file, even to a worker that builds its own queue client.
 * Without a minter the process gets the stack's tokens and the store's keys (queue grants are
 * then enforced in the context only). The harness itself (the run logs) keeps the stack's
 * tokens.
 *
 * <p>Threads: the caller's thread waits for the process; two daemon threads per run read its
 * output and standard error. One harness serves concurrent runs.
 */
public final class WorkerHarness implements AutoCloseable {
  /** How long a run's token outlives the run's timeout: process start and the last confirmation. */
  public static final Duration TOKEN_MARGIN = Duration.ofMinutes(1);
  private final WorkerEndpoints endpoints;
  private final ScopedTokens tokens;
  private final HarnessSettings settings;
  private final VerglasClient client;
  private final RunLog logs;

  /** A harness handing runs the stack's own tokens. */
  public WorkerHarness(WorkerEndpoints endpoints, HarnessSettings settings) {
    this(endpoints, settings, null);
  }

  /**
   * A harness handing each run a scoped token of its deployment's grants.
   *
   * @param tokens mints the runs' tokens with the key the stack's servers verify them with, or
   *     null to hand runs the stack's own tokens
   */
  public WorkerHarness(WorkerEndpoints endpoints, HarnessSettings settings, ScopedTokens tokens) {
    this.endpoints = endpoints;
    this.tokens = tokens;
    this.settings = settings;
    this.client = endpoints.client();
    this.logs = new RunLog(client);
  }

  /** The logs table of a deployment: {@code verglas_sys.<deployment>_logs}. */
  public static org.apache.iceberg.catalog.TableIdentifier logsTable(String deployment) {
    return RunLog.table(deployment);
  }

  /** The spec of one run of {@code deployment} for the trigger {@code identity}. */
  public RunSpec spec(Deployment deployment, String identity, CloudEvent event, String runId,
      int attempt) {
    return new RunSpec(deployment, identity, event, runId, attempt, endpoints);
  }

  public RunResult run(RunSpec spec) throws WorkerRunException, InterruptedException {
    return run(spec, RunObserver.NONE);
  }

  /**
   * Runs {@code spec} and returns when its process ended and its log is durable.
   *
   * @throws WorkerRunException if the worker failed, timed out or its process died
   */
  public RunResult run(RunSpec spec, RunObserver observer)
      throws WorkerRunException, InterruptedException {
    return run(spec, spec.deployment()::secrets, observer);
  }

  /**
   * Runs {@code spec} with its deployment's secrets read from {@code secrets} as the run starts
   * (after its start event): a secret that does not resolve fails the run, its reason (the
   * reference, never a value) logged as the run's error event.
   *
   * @throws WorkerRunException if a secret did not resolve, or as {@link #run(RunSpec, RunObserver)}
   */
  public RunResult run(RunSpec spec, SecretSource secrets, RunObserver observer)
      throws WorkerRunException, InterruptedException {
    try (RunLog.Writer log = logs.open(spec)) {
      log.append(RunEvent.start(settings.clock().instant(), "attempt " + spec.attempt()
          + " of " + spec.identity()));
      return run(scoped(withSecrets(spec, secrets, log), log), observer, log);
    }
  }

  private RunSpec withSecrets(RunSpec spec, SecretSource secrets, RunLog.Writer log)
      throws WorkerRunException {
    try {
      return spec.withSecrets(secrets.read());
    } catch (SecretUnavailableException e) { // the secret may be set before the next attempt
      throw refused(spec, log, e.getMessage(), WorkerRunException.Failure.FAILED);
    }
  }

  /** {@code spec} with a scoped token of its grants in place of the stack's tokens. */
  private RunSpec scoped(RunSpec spec, RunLog.Writer log) throws WorkerRunException {
    if (tokens == null) {
      return spec;
    }
    Deployment deployment = spec.deployment();
    String subject = deployment.name() + "/" + spec.runId();
    try {
      ObjectStoreEndpoint queues = spec.endpoints().queues();
      TableScope scope = new TableScope(
          subject.substring(0, Math.min(subject.length(), TableScope.MAX_SUBJECT_CHARS)),
          settings.clock().instant().plus(deployment.timeout()).plus(TOKEN_MARGIN),
          deployment.grants().reads(), deployment.grants().writes(),
          queues == null ? List.of() : queueObjects(queues.bucket(), deployment.grants().queues()));
      String token = tokens.mint(scope);
      WorkerEndpoints scoped = spec.endpoints().withToken(token);
      return spec.withEndpoints(queues == null ? scoped
          : scoped.withQueues(queues.withSession(tokens.session(token))));
    } catch (IllegalArgumentException e) { // a scope too large for a token, at every attempt
      throw refused(spec, log, e.getMessage(), WorkerRunException.Failure.PERMANENT);
    }
  }

  /** The objects of {@code bucket} the queue verbs of {@code grants} touch. */
  private static List<ObjectGrant> queueObjects(String bucket, QueueGrants grants) {
    List<ObjectGrant> objects = new ArrayList<>();
    grants.publish().forEach(queue -> objects.addAll(QueueObjectGrants.publish(bucket, queue)));
    grants.consume().forEach(queue -> objects.addAll(QueueObjectGrants.consume(bucket, queue)));
    return objects;
  }

  /** The failure of a run that could not start for {@code reason}, logged as its error. */
  private WorkerRunException refused(RunSpec spec, RunLog.Writer log, String reason,
      WorkerRunException.Failure failure) {
    String message = "Cannot run deployment " + spec.deployment().name() + " for "
        + spec.identity() + ": " + reason;
    Instant now = settings.clock().instant();
    boolean permanent = failure == WorkerRunException.Failure.PERMANENT;
    log.append((permanent ? RunEvent.permanentError(now, message) : RunEvent.error(now, message))
        .truncated(settings.maxMessageChars()));
    return new WorkerRunException(message, failure);
  }

  private RunResult run(RunSpec spec, RunObserver observer, RunLog.Writer log)
      throws WorkerRunException, InterruptedException {
    Process process = start(spec);
    try {
      observer.started(spec, process.toHandle());
      EventReader events = EventReader.start(process.getInputStream(), event -> {
        log.append(event);
        observer.event(spec, event);
      }, settings, "verglas-run-events-" + spec.runId());
      OutputTail stderr = OutputTail.start(process.getErrorStream(), settings.stderrTailLines(),
          "verglas-run-stderr-" + spec.runId());
      send(process, spec);
      return outcome(spec, process, events, stderr, log);
    } finally {
      process.destroyForcibly();
    }
  }

  private RunResult outcome(RunSpec spec, Process process, EventReader events, OutputTail stderr,
      RunLog.Writer log) throws WorkerRunException, InterruptedException {
    long timeoutMs = spec.deployment().timeout().toMillis();
    boolean exited = process.waitFor(timeoutMs, TimeUnit.MILLISECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor();
    }
    events.await();
    if (events.droppedLogEvents() > 0) {
      log.append(RunEvent.log(settings.clock().instant(), "warn", events.droppedLogEvents()
          + " log messages dropped (at most " + settings.maxLogEvents() + " a run)"));
    }
    RunEvent terminal = events.terminal();
    String prefix = "Cannot run deployment " + spec.deployment().name() + " for " + spec.identity() + ": ";
    if (!exited) {
      String message = prefix + "timed out after " + timeoutMs + " ms; the worker process was killed";
      log.append(RunEvent.error(settings.clock().instant(), message));
      throw new WorkerRunException(message, WorkerRunException.Failure.TIMED_OUT);
    }
    if (process.exitValue() == 0 && terminal != null && terminal.kind() == RunEvent.Kind.END) {
      return new RunResult(spec.runId(), events.commits(), terminal.rows() == null ? 0 : terminal.rows());
    }
    if (terminal != null && terminal.kind() != RunEvent.Kind.END) {
      throw new WorkerRunException(prefix + terminal.message(),
          terminal.kind() == RunEvent.Kind.PERMANENT_ERROR ? WorkerRunException.Failure.PERMANENT
              : WorkerRunException.Failure.FAILED);
    }
    String output = stderr.text();
    String message = prefix + "the worker process exited with status " + process.exitValue()
        + " without ending the run" + (output.isEmpty() ? "" : "; its last output:\n" + output);
    log.append(RunEvent.error(settings.clock().instant(), message).truncated(settings.maxMessageChars()));
    throw new WorkerRunException(message, WorkerRunException.Failure.FAILED);
  }

  private Process start(RunSpec spec) throws WorkerRunException {
    List<String> classpath = new ArrayList<>();
    if (spec.deployment().jar() != null) {
      classpath.add(spec.deployment().jar().toString());
    }
    classpath.addAll(settings.runtimeClasspath());
    List<String> command = new ArrayList<>();
    command.add(settings.java().toString());
    command.addAll(settings.jvmOptions());
    command.add("-cp");
    command.add(String.join(File.pathSeparator, classpath));
    command.add(WorkerMain.class.getName());
    try {
      return new ProcessBuilder(command).start();
    } catch (IOException e) {
      throw new WorkerRunException("Cannot start the worker process of deployment "
          + spec.deployment().name() + ": " + e.getMessage(), WorkerRunException.Failure.FAILED);
    }
  }

  /** Writes the spec to the process's standard input; a process already dead is found later. */
  private static void send(Process process, RunSpec spec) {
    try (OutputStream in = process.getOutputStream()) {
      in.write(RunSpecParser.toJson(spec).getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      // the process died before reading it: its exit status says so
    }
  }

  @Override
  public void close() {
    client.close();
  }
}

package io.verglas.workers.deploy;

import io.verglas.queue.log.QueueLayout;
import io.verglas.table.TableIdentifiers;
import io.verglas.workers.api.DataGrants;
import io.verglas.workers.api.QueueGrants;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * A deployment as stored: name, kind, triggers, placement, code (jar and worker class),
 * config, secret references, data grants (tables to read and write, queues to publish to and
 * consume from), named outputs, run timeout and scaling shape. What
 * makes a deployment portable: the same record runs unchanged wherever its placement is served.
 *
 * <p>Secrets are references ({@code env:NAME}, {@code file:/absolute/path}) resolved where the
 * deployment runs ({@link SecretReferences}); a record never holds a secret's value, so the
 * deployments table never does either.
 *
 * <p>Built with {@link #builder(String)}, the validation boundary: a record that exists is
 * valid. Kind {@code container} and placement {@code cloud} belong to the record's format but
 * are not built: a record naming them fails to build and says so.
 */
public final class DeploymentRecord {
  public static final Duration TIMEOUT_DEFAULT = Duration.ofMinutes(10);
  public static final Duration TIMEOUT_MAX = Duration.ofHours(24);
  public static final int MAX_CONCURRENCY_LIMIT = 64;
  private static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");
  private static final Pattern CLASS_NAME =
      Pattern.compile("[A-Za-z_$][A-Za-z0-9_$]*(\\.[A-Za-z_$][A-Za-z0-9_$]*)*");

  /** What runs: a worker class in a jar (containers are not built). */
  public enum Kind { WORKER, CONTAINER }

  /** Where it runs: this machine's plane (the cloud placement is not built). */
  public enum Placement { LOCAL, CLOUD }

  private final String name;
  private final Kind kind;
  private final List<TriggerSpec> triggers;
  private final Placement placement;
  private final URI jar;
  private final String workerClass;
  private final Map<String, String> config;
  private final Map<String, String> secrets;
  private final List<String> reads;
  private final List<String> writes;
  private final QueueGrants queues;
  private final Map<String, String> outputs;
  private final Duration timeout;
  private final int maxConcurrency;

  private DeploymentRecord(Builder b) {
    this.name = b.name;
    this.kind = b.kind;
    this.triggers = List.copyOf(b.triggers);
    this.placement = b.placement;
    this.jar = b.jar;
    this.workerClass = b.workerClass;
    this.config = unmodifiableSorted(b.config);
    this.secrets = unmodifiableSorted(b.secrets);
    this.reads = List.copyOf(new TreeSet<>(b.reads));
    this.writes = List.copyOf(new TreeSet<>(b.writes));
    this.queues = QueueGrants.of(b.publish, b.consume);
    this.outputs = unmodifiableSorted(b.outputs);
    this.timeout = b.timeout;
    this.maxConcurrency = b.maxConcurrency;
  }

  public static Builder builder(String name) {
    return new Builder(name);
  }

  public String name() { return name; }
  public Kind kind() { return kind; }
  public List<TriggerSpec> triggers() { return triggers; }
  public Placement placement() { return placement; }
  /** The worker's jar: an absolute {@code file:} URI. */
  public URI jar() { return jar; }
  public String workerClass() { return workerClass; }
  public Map<String, String> config() { return config; }
  /** Secret name to its reference ({@code env:NAME} or {@code file:/path}), never a value. */
  public Map<String, String> secrets() { return secrets; }
  /** Tables granted for reading only, sorted ({@code ns.t}). */
  public List<String> reads() { return reads; }
  /** Tables granted for writing (and reading), sorted. */
  public List<String> writes() { return writes; }
  /** The queues it may publish to and consume from (none unless granted). */
  public QueueGrants queues() { return queues; }
  /** Its table and queue grants as the harness enforces them. */
  public DataGrants grants() { return DataGrants.of(reads, writes).withQueues(queues); }
  /** Output name to table; every table is write-granted. */
  public Map<String, String> outputs() { return outputs; }
  public Duration timeout() { return timeout; }
  /** Runs of this deployment at once at most (the scaling shape). */
  public int maxConcurrency() { return maxConcurrency; }

  /** The cron triggers among {@link #triggers()}. */
  public List<TriggerSpec.Cron> cronTriggers() {
    return triggers.stream().filter(TriggerSpec.Cron.class::isInstance)
        .map(TriggerSpec.Cron.class::cast).toList();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeploymentRecord r && name.equals(r.name) && kind == r.kind
        && triggers.equals(r.triggers) && placement == r.placement && jar.equals(r.jar)
        && workerClass.equals(r.workerClass) && config.equals(r.config)
        && secrets.equals(r.secrets) && reads.equals(r.reads) && writes.equals(r.writes)
        && queues.equals(r.queues)
        && outputs.equals(r.outputs) && timeout.equals(r.timeout)
        && maxConcurrency == r.maxConcurrency;
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, triggers, jar, workerClass, config, outputs);
  }

  @Override
  public String toString() {
    return "DeploymentRecord[" + name + ", " + workerClass + " in " + jar + ", "
        + triggers.size() + " triggers]";
  }

  private static Map<String, String> unmodifiableSorted(Map<String, String> map) {
    return java.util.Collections.unmodifiableMap(new TreeMap<>(map));
  }

  /** Builds a {@link DeploymentRecord}; each setter checks its value, {@link #build()} the whole. */
  public static final class Builder {
    private final String name;
    private Kind kind = Kind.WORKER;
    private final List<TriggerSpec> triggers = new ArrayList<>();
    private Placement placement = Placement.LOCAL;
    private URI jar;
    private String workerClass;
    private final Map<String, String> config = new LinkedHashMap<>();
    private final Map<String, String> secrets = new LinkedHashMap<>();
    private final Set<String> reads = new TreeSet<>();
    private final Set<String> writes = new TreeSet<>();
    private final Set<String> publish = new TreeSet<>();
    private final Set<String> consume = new TreeSet<>();
    private final Map<String, String> outputs = new LinkedHashMap<>();
    private Duration timeout = TIMEOUT_DEFAULT;
    private int maxConcurrency = 1;

    private Builder(String name) {
      if (name == null || !NAME.matcher(name).matches()) {
        throw new IllegalArgumentException("Cannot use deployment name '" + name
            + "': lower-case letters, digits, '_' and '-', at most 63, starting with a letter or digit");
      }
      this.name = name;
    }

    public Builder kind(Kind value) {
      this.kind = Objects.requireNonNull(value, "kind");
      return this;
    }

    public Builder trigger(TriggerSpec value) {
      Objects.requireNonNull(value, "trigger");
      if (triggers.stream().anyMatch(t -> t.name().equals(value.name()))) {
        throw new IllegalArgumentException(fail("trigger '" + value.name() + "' is named twice"));
      }
      triggers.add(value);
      return this;
    }

    public Builder placement(Placement value) {
      this.placement = Objects.requireNonNull(value, "placement");
      return this;
    }

    /** The worker's jar and class; the jar an absolute {@code file:} URI. */
    public Builder code(URI jarUri, String className) {
      Objects.requireNonNull(jarUri, "jar");
      if (!"file".equals(jarUri.getScheme()) || jarUri.getPath() == null
          || !jarUri.getPath().startsWith("/")) {
        throw new IllegalArgumentException(fail("jar " + jarUri + " is not an absolute file: URI"
            + " (jars on object storage are not built)"));
      }
      if (className == null || !CLASS_NAME.matcher(className).matches()) {
        throw new IllegalArgumentException(fail("'" + className + "' is not a class name"));
      }
      this.jar = jarUri;
      this.workerClass = className;
      return this;
    }

    public Builder config(String key, String value) {
      config.put(key(key, "config"), Objects.requireNonNull(value, "value of config " + key));
      return this;
    }

    /** A secret by reference: {@code env:NAME} or {@code file:/absolute/path}. */
    public Builder secret(String key, String reference) {
      if (reference == null || !TriggerSpec.SECRET_REFERENCE.matcher(reference).matches()) {
        throw new IllegalArgumentException(fail("secret '" + key + "' must be a reference, "
            + "env:NAME or file:/absolute/path (a record never holds a secret's value)"));
      }
      secrets.put(key(key, "secret"), reference);
      return this;
    }

    public Builder read(String table) {
      reads.add(table(table));
      return this;
    }

    public Builder write(String table) {
      writes.add(table(table));
      return this;
    }

    /** Grants publishing to {@code queue}. */
    public Builder publish(String queue) {
      publish.add(queue(queue));
      return this;
    }

    /** Grants consuming from {@code queue} (in any consumer group). */
    public Builder consume(String queue) {
      consume.add(queue(queue));
      return this;
    }

    public Builder output(String key, String table) {
      outputs.put(key(key, "output"), table(table));
      return this;
    }

    public Builder timeout(Duration value) {
      if (value == null || value.isNegative() || value.isZero() || value.compareTo(TIMEOUT_MAX) > 0) {
        throw new IllegalArgumentException(fail("timeout " + value + " is not in (0, "
            + TIMEOUT_MAX + "]"));
      }
      this.timeout = value;
      return this;
    }

    public Builder maxConcurrency(int value) {
      if (value < 1 || value > MAX_CONCURRENCY_LIMIT) {
        throw new IllegalArgumentException(fail("maxConcurrency " + value + " is not in 1.."
            + MAX_CONCURRENCY_LIMIT));
      }
      this.maxConcurrency = value;
      return this;
    }

    public DeploymentRecord build() {
      if (kind != Kind.WORKER) {
        throw new IllegalArgumentException(fail("kind " + kind.name().toLowerCase(java.util.Locale.ROOT)
            + " is not built (only worker)"));
      }
      if (placement != Placement.LOCAL) {
        throw new IllegalArgumentException(fail("placement "
            + placement.name().toLowerCase(java.util.Locale.ROOT) + " is not built (only local)"));
      }
      if (jar == null) {
        throw new IllegalStateException(fail("no code (jar and worker class)"));
      }
      Set<String> readOnly = new HashSet<>(reads);
      readOnly.retainAll(writes);
      reads.removeAll(readOnly); // a write grant includes reading: keep each table once
      for (Map.Entry<String, String> output : outputs.entrySet()) {
        if (!writes.contains(output.getValue())) {
          throw new IllegalStateException(fail("output '" + output.getKey() + "' names table "
              + output.getValue() + ", which is not granted for writes"));
        }
      }
      return new DeploymentRecord(this);
    }

    private String fail(String reason) {
      return "Cannot define deployment " + name + ": " + reason;
    }

    private String key(String key, String what) {
      if (key == null || key.isEmpty() || key.length() > 200) {
        throw new IllegalArgumentException(fail("empty or over-long " + what + " name '" + key + "'"));
      }
      return key;
    }

    private String queue(String queue) {
      try {
        return QueueLayout.checkQueue(queue);
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(fail(e.getMessage()), e);
      }
    }

    private String table(String table) {
      try {
        return TableIdentifiers.toString(TableIdentifiers.identifier(table));
      } catch (RuntimeException e) {
        throw new IllegalArgumentException(fail("bad table name '" + table + "': " + e.getMessage()), e);
      }
    }
  }
}

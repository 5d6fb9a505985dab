package io.verglas.cli.local;

import io.verglas.queue.QueueMessage;
import io.verglas.workers.api.Worker;
import io.verglas.workers.api.WorkerContext;
import io.verglas.workers.api.WorkerTable;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Workers the harness tests run (public: the run's process instantiates them by name). */
public final class TestingWorkers {
  private TestingWorkers() {}

  /**
   * Commits config {@code batches} batches of config {@code rows} rows to output {@code out},
   * each row {@code (trigger id, batch, n)}: deterministic in its trigger, as a worker must be.
   */
  public static final class Batches implements Worker {
    @Override
    public void handle(WorkerContext ctx) {
      int batches = Integer.parseInt(ctx.config().get("batches"));
      int rows = Integer.parseInt(ctx.config().get("rows"));
      WorkerTable out = ctx.output("out");
      for (int batch = 0; batch < batches; batch++) {
        List<Map<String, Object>> commit = new ArrayList<>();
        for (int n = 0; n < rows; n++) {
          commit.add(Map.of("trigger", ctx.trigger().getId(), "batch", batch, "n", n));
        }
        out.commit(commit);
        ctx.log().info("committed batch " + batch);
      }
    }
  }

  /** Commits one row to the table named by config {@code target}, granted or not. */
  public static final class Trespasser implements Worker {
    @Override
    public void handle(WorkerContext ctx) {
      ctx.table(ctx.config().get("target"))
          .commit(List.of(Map.of("trigger", ctx.trigger().getId(), "batch", 0, "n", 0)));
    }
  }

  /**
   * Commits one row to config {@code target} with the client its context holds, past the
   * context's grant checks, as a worker that builds a client of its own would.
   */
  public static final class Bypass implements Worker {
    @Override
    public void handle(WorkerContext ctx) throws ReflectiveOperationException {
      java.lang.reflect.Field field = ctx.getClass().getDeclaredField("client");
      field.setAccessible(true);
      io.verglas.sdk.VerglasClient client = (io.verglas.sdk.VerglasClient) field.get(ctx);
      client.table(ctx.config().get("target"))
          .commit(List.of(Map.of("trigger", ctx.trigger().getId(), "batch", 0, "n", 0)), "bypass");
    }
  }

  /**
   * Publishes config {@code count} messages ({@code m0}, ...) to queue config {@code queue},
   * consumes them in group {@code relay}, logs them with their keys and, when it has an output
   * {@code out}, commits one row per message to it; then, when config {@code trespass} is
   * {@code publish} or {@code consume}, does that on queue config {@code other}.
   */
  public static final class QueueRelay implements Worker {
    @Override
    public void handle(WorkerContext ctx) throws InterruptedException {
      String queue = ctx.config().get("queue");
      int count = Integer.parseInt(ctx.config().get("count"));
      List<QueueMessage> messages = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        messages.add(QueueMessage.of(("m" + i).getBytes(StandardCharsets.UTF_8)));
      }
      ctx.publish(queue, messages);
      List<String> got = new ArrayList<>();
      long deadline = System.nanoTime() + 30_000_000_000L;
      while (got.size() < count && System.nanoTime() < deadline) {
        if (ctx.consume(queue, "relay", batch -> batch.forEach(d -> got.add(
            new String(d.message().payload(), StandardCharsets.UTF_8) + "=" + d.message().key()))) == 0) {
          Thread.sleep(100);
        }
      }
      ctx.log().info("consumed " + got);
      if (ctx.outputs().containsKey("out")) {
        List<Map<String, Object>> rows = new ArrayList<>();
        for (int n = 0; n < got.size(); n++) {
          rows.add(Map.of("trigger", ctx.trigger().getId(), "batch", 0, "n", n));
        }
        ctx.output("out").commit(rows);
      }
      String other = ctx.config().get("other");
      switch (ctx.config().getOrDefault("trespass", "none")) {
        case "publish" -> ctx.publish(other, messages);
        case "consume" -> ctx.consume(other, "relay", batch -> { });
        default -> { }
      }
    }
  }

  /**
   * Past its context, as a worker that builds its own clients would: takes the object store
   * credentials its process holds, publishes to and consumes from queue config {@code queue}
   * with a raw {@link io.verglas.sdk.QueueClient}, logs what it holds and what a raw S3 write of
   * config {@code file} got, then publishes to queue config {@code other} (which fails the run
   * when the server refuses it).
   */
  public static final class QueueBypass implements Worker {
    @Override
    public void handle(WorkerContext ctx) throws Exception {
      java.lang.reflect.Field field = ctx.getClass().getDeclaredField("spec");
      field.setAccessible(true);
      io.verglas.store.ObjectStoreEndpoint held =
          ((io.verglas.workers.harness.RunSpec) field.get(ctx)).endpoints().queues();
      List<QueueMessage> messages = List.of(QueueMessage.of("raw".getBytes(StandardCharsets.UTF_8)));
      try (io.verglas.sdk.QueueClient raw = io.verglas.sdk.QueueClient.connect(held);
          software.amazon.awssdk.services.s3.S3Client s3 = held.newClient()) {
        raw.publish(ctx.config().get("queue"), messages);
        int consumed = raw.consume(ctx.config().get("queue"), "raw", batch -> { });
        ctx.log().info("holds " + (held.sessionToken() == null ? "keys" : "a session of "
            + held.accessKey().substring(0, 3)) + "; consumed " + consumed);
        try {
          s3.putObject(b -> b.bucket(held.bucket()).key(ctx.config().get("file")),
              software.amazon.awssdk.core.sync.RequestBody.fromString("overwritten"));
          ctx.log().info("file write got 200");
        } catch (software.amazon.awssdk.services.s3.model.S3Exception e) {
          ctx.log().info("file write got " + e.statusCode());
        }
        raw.publish(ctx.config().get("other"), messages);
      }
    }
  }

  /** Sleeps for a minute (to be killed at its timeout). */
  public static final class Sleeper implements Worker {
    @Override
    public void handle(WorkerContext ctx) throws InterruptedException {
      Thread.sleep(60_000);
    }
  }

  /**
   * Commits the rows of a webhook's JSON body ({@code {"rows": [{"id": 1, "v": "a"}]}}) to
   * output {@code out}, each with the trigger's id.
   */
  public static final class WebhookRows implements Worker {
    @Override
    public void handle(WorkerContext ctx) throws java.io.IOException {
      com.fasterxml.jackson.databind.JsonNode body = new com.fasterxml.jackson.databind.ObjectMapper()
          .readTree(ctx.trigger().getData().toBytes());
      List<Map<String, Object>> rows = new ArrayList<>();
      for (com.fasterxml.jackson.databind.JsonNode row : body.path("rows")) {
        rows.add(Map.of("trigger", ctx.trigger().getId(), "id", row.path("id").asLong(),
            "v", row.path("v").asText()));
      }
      ctx.output("out").commit(rows);
    }
  }

  /** Commits one row per trigger to output {@code out}: the event's id and subject. */
  public static final class EventRecorder implements Worker {
    @Override
    public void handle(WorkerContext ctx) {
      ctx.output("out").commit(List.of(Map.of("trigger", ctx.trigger().getId(),
          "id", 0L, "v", String.valueOf(ctx.trigger().getSubject()))));
    }
  }

  /** Commits one row to output {@code out}: the trigger's id and its secret {@code token}. */
  public static final class SecretRows implements Worker {
    @Override
    public void handle(WorkerContext ctx) {
      ctx.output("out").commit(List.of(Map.of("trigger", ctx.trigger().getId(),
          "id", 0L, "v", ctx.secret("token"))));
    }
  }
}
